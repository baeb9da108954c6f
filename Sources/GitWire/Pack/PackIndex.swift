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
    /// The fan-out and the first eight bytes of each name: lookups search these.
    private let names: SortedNames

    private static let headerLength = 8
    private static let fanOutLength = SortedNames.fanOutLength
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
        let count: Int
        do {
            count = try SortedNames.count(fanOut: bytes[...], at: Self.headerLength)
        } catch {
            throw .badFanOut(bucket: error.bucket)
        }
        let fixed = minimum + count * (width + 8)
        // As git's load_idx: at most one 8-byte large offset per object but the first (which
        // starts at offset 12).
        guard bytes.count >= fixed, (bytes.count - fixed) % 8 == 0, bytes.count <= Self.maximumSize(count, format)
        else { throw .badSize(bytes.count, objects: count) }
        self.format = format
        self.count = count
        self.bytes = bytes
        largeOffsetCount = (bytes.count - fixed) / 8
        names = SortedNames(
            bytes[...], fanOut: Self.headerLength, names: Self.headerLength + Self.fanOutLength, width: width)
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
        return names.position(of: id, name: self.id(at:))
    }

    /// The pack offset of `id`, or nil if the pack does not hold it.
    public func offset(of id: ObjectID) -> UInt64? { position(of: id).map(offset(at:)) }

    private func offsetWord(at position: Int) -> UInt32 { bigEndianUInt32(bytes[...], at: offsetStart + position * 4) }
}
