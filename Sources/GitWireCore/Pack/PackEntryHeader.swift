/// The header of one pack entry: its type, its inflated size and, for a delta, where its base is.
/// Parsing is a pure function over bytes.
public struct PackEntryHeader: Equatable, Sendable {
    /// What the entry holds.
    public enum Kind: Equatable, Sendable {
        /// A whole object of this type.
        case object(ObjectType)
        /// A delta against the entry at this absolute pack offset (`OBJ_OFS_DELTA`, type 6).
        case offsetDelta(baseOffset: UInt64)
        /// A delta against the object with this name (`OBJ_REF_DELTA`, type 7).
        case referenceDelta(base: ObjectID)
    }

    /// What the entry holds.
    public var kind: Kind
    /// The size of the inflated data: the object, or the delta.
    public var size: UInt64
    /// The header's length in bytes; the zlib stream starts right after it.
    public var length: Int

    /// Makes a header.
    public init(kind: Kind, size: UInt64, length: Int) {
        self.kind = kind
        self.size = size
        self.length = length
    }

    /// The longest header that can be valid: a 10-byte size and a 32-byte (SHA-256) base name.
    public static let maximumLength = 42

    /// The pack type number: 1 to 4 for objects, 6 for offset deltas, 7 for reference deltas.
    public var typeNumber: UInt8 {
        switch kind {
        case .object(let type): return type.rawValue
        case .offsetDelta: return 6
        case .referenceDelta: return 7
        }
    }

    /// Parses the header of the entry that starts at pack offset `offset`, at the start of `bytes`,
    /// in a pack of `format` (the width of a reference delta's base name).
    /// Returns nil when `bytes` ends before the header does; throws when the header is malformed.
    public static func parse(_ bytes: ArraySlice<UInt8>, at offset: UInt64, format: ObjectFormat) throws(PackError)
        -> PackEntryHeader?
    {
        var index = bytes.startIndex
        guard index < bytes.endIndex else { return nil }
        var byte = bytes[index]
        index += 1
        let typeNumber = (byte >> 4) & 7
        var size = UInt64(byte & 15)
        var shift: UInt64 = 4
        while byte & 0x80 != 0 {
            guard index < bytes.endIndex else { return nil }
            byte = bytes[index]
            index += 1
            let bits = UInt64(byte & 0x7f)
            guard shift < 64, (bits << shift) >> shift == bits else { throw PackError(offset: offset, .headerOverflow) }
            size |= bits << shift
            shift += 7
        }
        let kind: Kind
        switch typeNumber {
        case 1...4:
            kind = .object(ObjectType(rawValue: typeNumber)!)
        case 6:
            byte = 0x80
            var distance: UInt64 = 0
            var first = true
            while byte & 0x80 != 0 {
                guard index < bytes.endIndex else { return nil }
                byte = bytes[index]
                index += 1
                if !first {
                    guard distance < UInt64.max >> 7 else { throw PackError(offset: offset, .headerOverflow) }
                    distance = (distance + 1) << 7
                }
                distance |= UInt64(byte & 0x7f)
                first = false
            }
            guard distance > 0, distance < offset else {
                throw PackError(offset: offset, .badDeltaBaseOffset(distance: distance))
            }
            kind = .offsetDelta(baseOffset: offset - distance)
        case 7:
            let width = format.byteCount
            guard bytes.endIndex - index >= width else { return nil }
            kind = .referenceDelta(base: ObjectID(bytes: bytes[index..<index + width], format: format)!)
            index += width
        default:
            throw PackError(offset: offset, .badObjectType(typeNumber))
        }
        return PackEntryHeader(kind: kind, size: size, length: index - bytes.startIndex)
    }

    /// The header bytes of a whole (non-delta) object of `type` and `size`, as git writes them.
    public static func encode(type: ObjectType, size: UInt64) -> [UInt8] {
        encode(typeNumber: type.rawValue, size: size)
    }

    /// The header bytes for any type number and size (tests write invalid ones too); a delta's
    /// base offset or name follows them.
    package static func encode(typeNumber: UInt8, size: UInt64) -> [UInt8] {
        var result: [UInt8] = []
        var rest = size >> 4
        var byte = typeNumber << 4 | UInt8(size & 15)
        while rest != 0 {
            result.append(byte | 0x80)
            byte = UInt8(rest & 0x7f)
            rest >>= 7
        }
        result.append(byte)
        return result
    }
}
