import GitWire
import GitWireCoreTestSupport

/// Builds packs entry by entry, including wrong ones, for tests.
struct TestPackBuilder {
    private var body: [UInt8] = []
    private(set) var count: UInt32 = 0

    /// The offset the next entry will have.
    var nextOffset: Int { 12 + body.count }

    /// Adds a whole object whose header says `size` (by default the data's size); returns its offset.
    @discardableResult
    mutating func addObject(_ type: ObjectType, _ data: [UInt8], size: Int? = nil) throws -> Int {
        try addEntry(typeNumber: type.rawValue, size: size ?? data.count, extra: [], data: data)
    }

    /// Adds an offset delta against the entry at `baseOffset`; returns its offset.
    @discardableResult
    mutating func addOffsetDelta(baseOffset: Int, _ delta: [UInt8]) throws -> Int {
        let encoded = PackEncoding.baseDistance(nextOffset - baseOffset)
        return try addEntry(typeNumber: 6, size: delta.count, extra: encoded, data: delta)
    }

    /// Adds a reference delta against `base`; returns its offset.
    @discardableResult
    mutating func addReferenceDelta(base: ObjectID, _ delta: [UInt8]) throws -> Int {
        try addEntry(typeNumber: 7, size: delta.count, extra: base.bytes, data: delta)
    }

    /// Adds bytes as they are, counted as one entry.
    mutating func addRaw(_ bytes: [UInt8]) {
        body += bytes
        count += 1
    }

    /// The pack: header (with `objectCount` if given), entries and checksum.
    func bytes(objectCount: UInt32? = nil) -> [UInt8] {
        var pack = PackHeader(objectCount: objectCount ?? count).bytes + body
        UncheckedSHA1.hash(pack[...]).append(to: &pack)
        return pack
    }

    private mutating func addEntry(typeNumber: UInt8, size: Int, extra: [UInt8], data: [UInt8]) throws -> Int {
        let offset = nextOffset
        let header = PackEncoding.entryHeader(typeNumber: typeNumber, size: UInt64(size))
        body += header + extra + (try Deflater().deflateWhole(data[...]))
        count += 1
        return offset
    }
}
