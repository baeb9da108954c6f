import GitWireCore

/// The pack format's variable-length numbers (`man gitformat-pack`), for building packs in tests
/// and fuzz targets, wrong ones included.
public enum PackEncoding {
    /// An entry header: type number (1-4 objects, 6 offset delta, 7 reference delta) and size, as
    /// git writes them; any type number and size, so tests can write invalid ones.
    public static func entryHeader(typeNumber: UInt8, size: UInt64) -> [UInt8] {
        PackEntryHeader.encode(typeNumber: typeNumber, size: size)
    }

    /// The distance back to an offset delta's base, in the offset encoding (each continuation
    /// adds one before shifting).
    public static func baseDistance(_ distance: Int) -> [UInt8] {
        var distance = distance
        var encoded = [UInt8(distance & 127)]
        distance >>= 7
        while distance != 0 {
            distance -= 1
            encoded.insert(0x80 | UInt8(distance & 127), at: 0)
            distance >>= 7
        }
        return encoded
    }

    /// A size at the start of a delta: seven bits a byte, least significant first.
    public static func deltaSize(_ value: Int) -> [UInt8] {
        var value = value
        var bytes: [UInt8] = []
        repeat {
            var byte = UInt8(value & 0x7f)
            value >>= 7
            if value != 0 { byte |= 0x80 }
            bytes.append(byte)
        } while value != 0
        return bytes
    }
}
