/// A version 2 pack index (`.idx`), read into memory: looks up an object's offset in its pack.
/// Its names and checksums are of its repository's format (git writes version 2 indexes for
/// SHA-256 repositories too, with 32-byte names).
public struct PackIndex: Sendable {
    /// The format of the names and checksums.
    public let format: ObjectFormat
    /// The number of objects.
    public let count: Int
    /// The checksum of the pack this index describes.
    public let packChecksum: ObjectID
    private let bytes: [UInt8]
    private let largeOffsetCount: Int
    /// The first eight bytes of each name, big-endian, in name order: lookups search these (8
    /// bytes an object) and read a whole name only where they match.
    private let prefixes: [UInt64]
    /// A finer fan-out over `prefixes`, by the first `radixBits` bits of a name: `radix[k]` is
    /// the first position whose name's first bits are `k` or more (`radix[1 << radixBits]` is
    /// `count`). About two names a slot: a lookup searches a few neighbouring prefixes instead of
    /// binary-searching a bucket of the 256 (1,900 names each in curl's pack: about ten reads,
    /// half of them cache misses).
    private let radix: [UInt32]
    private let radixBits: Int

    private static let headerLength = 8
    private static let fanOutLength = 256 * 4
    private var namesStart: Int { Self.headerLength + Self.fanOutLength }
    private var crcStart: Int { namesStart + count * format.byteCount }
    private var offsetStart: Int { crcStart + count * 4 }
    private var largeOffsetStart: Int { offsetStart + count * 4 }

    /// Parses and checks an index of a pack of `format`: signature, version 2, fan-out order,
    /// table sizes and large offsets. Its trailing checksum is not computed here (git does not
    /// either when it opens an index; hashing all of git.git's 24 MB index took longer than the
    /// rest of opening it): ``verifyChecksum()`` does that.
    public init(bytes: [UInt8], format: ObjectFormat) throws(PackIndexError) {
        let width = format.byteCount
        let minimum = Self.headerLength + Self.fanOutLength + 2 * width
        guard bytes.count >= minimum else { throw .tooShort(bytes.count) }
        guard bytes.starts(with: [0xff, 0x74, 0x4f, 0x63]) else { throw .badSignature }
        let version = bigEndianUInt32(bytes[...], at: 4)
        guard version == 2 else { throw .unsupportedVersion(version) }
        var previous: UInt32 = 0
        for bucket in 0..<256 {
            let value = bigEndianUInt32(bytes[...], at: Self.headerLength + bucket * 4)
            guard value >= previous else { throw .badFanOut(bucket: bucket) }
            previous = value
        }
        let count = Int(previous)
        let fixed = minimum + count * (width + 8)
        // As git's load_idx: at most one 8-byte large offset per object but the first (which
        // starts at offset 12).
        guard bytes.count >= fixed, (bytes.count - fixed) % 8 == 0, bytes.count <= Self.maximumSize(count, format)
        else { throw .badSize(bytes.count, objects: count) }
        self.format = format
        self.count = count
        self.bytes = bytes
        largeOffsetCount = (bytes.count - fixed) / 8
        let namesStart = Self.headerLength + Self.fanOutLength
        prefixes = (0..<count).map { position in
            let start = namesStart + position * width
            var value: UInt64 = 0
            for index in start..<(start + 8) { value = value << 8 | UInt64(bytes[index]) }
            return value
        }
        // Between 8 bits (the fan-out's) and 16 (256 KiB of table), about two names a slot.
        let radixBits = min(16, max(8, (Int.bitWidth - count.leadingZeroBitCount) - 1))
        var radix = [UInt32](repeating: UInt32(truncatingIfNeeded: count), count: (1 << radixBits) + 1)
        var slot = 0
        for (position, prefix) in prefixes.enumerated() {
            let first = Int(truncatingIfNeeded: prefix >> UInt64(64 - radixBits))
            while slot <= first {
                radix[slot] = UInt32(truncatingIfNeeded: position)
                slot += 1
            }
        }
        self.radix = radix
        self.radixBits = radixBits
        packChecksum = ObjectID(bytes: bytes[(bytes.count - 2 * width)...], format: format)!
        for position in 0..<count where offsetWord(at: position) & 0x8000_0000 != 0 {
            guard Int(offsetWord(at: position) & 0x7fff_ffff) < largeOffsetCount else {
                throw .badLargeOffset(position: position)
            }
        }
    }

    /// Checks the index's trailing checksum (what `git verify-pack` and `git fsck` check): throws
    /// ``PackIndexError/checksumMismatch`` if the bytes before it do not hash to it.
    public func verifyChecksum() throws(PackIndexError) {
        let width = format.byteCount
        let computed: ObjectID
        do {
            computed = try ObjectHasher.hash(bytes[..<(bytes.count - width)], format: format)
        } catch {
            throw .sha1CollisionAttack(error.safeHash)
        }
        guard computed == ObjectID(bytes: bytes.suffix(width), format: format) else { throw .checksumMismatch }
    }

    /// The largest index of `count` objects of `format`: every offset but the first a large one.
    private static func maximumSize(_ count: Int, _ format: ObjectFormat) -> Int {
        headerLength + fanOutLength + 2 * format.byteCount + count * (format.byteCount + 8) + max(count - 1, 0) * 8
    }

    /// Reads and checks the index at `path`, of a pack of `format`. A file larger than any index
    /// of the count its fan-out gives is refused before it is read whole.
    public init(path: String, format: ObjectFormat) throws {
        let file = try File.openForReading(path)
        let size = try file.size()
        let table = Self.headerLength + Self.fanOutLength
        if size >= Int64(table) {
            let start = try file.read(at: 0, count: table)
            if start.count == table, start.starts(with: [0xff, 0x74, 0x4f, 0x63]) {
                let count = Int(bigEndianUInt32(start[...], at: table - 4))
                guard size <= Int64(Self.maximumSize(count, format)) else {
                    throw PackIndexError.badSize(Int(size), objects: count)
                }
            }
        }
        try self.init(bytes: file.read(at: 0, count: Int(size)), format: format)
    }

    /// The name of the object at `position` in name order.
    public func id(at position: Int) -> ObjectID {
        ObjectID(bytes: bytes[(namesStart + position * format.byteCount)...], format: format)!
    }

    /// The CRC-32 of the raw entry of the object at `position`.
    public func crc32(at position: Int) -> UInt32 { bigEndianUInt32(bytes[...], at: crcStart + position * 4) }

    /// The pack offset of the object at `position`.
    public func offset(at position: Int) -> UInt64 {
        let word = offsetWord(at: position)
        guard word & 0x8000_0000 != 0 else { return UInt64(word) }
        return bigEndianUInt64(bytes[...], at: largeOffsetStart + Int(word & 0x7fff_ffff) * 8)
    }

    /// The position of `id` in name order, or nil if the pack does not hold it (a name of
    /// another format never is).
    public func position(of id: ObjectID) -> Int? {
        guard id.format == format else { return nil }
        let bucket = Int(id.firstByte)
        let first = bucket == 0 ? 0 : Int(bigEndianUInt32(bytes[...], at: Self.headerLength + (bucket - 1) * 4))
        let end = Int(bigEndianUInt32(bytes[...], at: Self.headerLength + bucket * 4))
        // A fan-out table that goes down (a damaged index) holds no such name.
        guard first < end else { return nil }
        // Names of one prefix are next to each other (in an index in name order).
        // The names sharing the key's first `radixBits` bits (a few), within its fan-out bucket.
        let slot = Int(truncatingIfNeeded: id.w0 >> UInt64(64 - radixBits))
        let low = max(first, Int(radix[slot]))
        let high = min(end, Int(radix[slot + 1]))
        guard low < high else { return nil }
        var position = partitionPoint(in: low..<high) { prefixes[$0] < id.w0 }
        while position < end && prefixes[position] == id.w0 {
            if self.id(at: position) == id { return position }
            position += 1
        }
        return nil
    }

    /// The pack offset of `id`, or nil if the pack does not hold it.
    public func offset(of id: ObjectID) -> UInt64? { position(of: id).map(offset(at:)) }

    private func offsetWord(at position: Int) -> UInt32 { bigEndianUInt32(bytes[...], at: offsetStart + position * 4) }
}
