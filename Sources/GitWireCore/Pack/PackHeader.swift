/// The 12 bytes that open a pack: `PACK`, the version and the number of objects.
public struct PackHeader: Equatable, Sendable {
    /// The pack's version, 2 or 3 (they are read the same way).
    public var version: UInt32
    /// The number of objects the pack says it holds.
    public var objectCount: UInt32

    /// The header's length in bytes.
    public static let length = 12

    /// Makes a header.
    public init(version: UInt32 = 2, objectCount: UInt32) {
        self.version = version
        self.objectCount = objectCount
    }

    /// Parses the header at the start of `bytes`; nil if fewer than 12 bytes are there.
    /// Throws for a bad signature or a version other than 2 or 3.
    public static func parse(_ bytes: ArraySlice<UInt8>) throws(PackError) -> PackHeader? {
        guard bytes.count >= length else {
            if !bytes.prefix(4).elementsEqual("PACK".utf8.prefix(bytes.count)) {
                throw PackError(offset: 0, .badSignature)
            }
            return nil
        }
        let start = bytes.startIndex
        guard bytes[start..<start + 4].elementsEqual("PACK".utf8) else { throw PackError(offset: 0, .badSignature) }
        let version = bigEndianUInt32(bytes, at: start + 4)
        guard version == 2 || version == 3 else { throw PackError(offset: 4, .unsupportedVersion(version)) }
        return PackHeader(version: version, objectCount: bigEndianUInt32(bytes, at: start + 8))
    }

    /// The header's 12 bytes.
    public var bytes: [UInt8] {
        var result = Array("PACK".utf8)
        appendBigEndian(version, to: &result)
        appendBigEndian(objectCount, to: &result)
        return result
    }
}

/// The big-endian 32-bit integer at `index` of `bytes` (which must hold 4 bytes there).
package func bigEndianUInt32(_ bytes: ArraySlice<UInt8>, at index: Int) -> UInt32 {
    UInt32(bytes[index]) << 24 | UInt32(bytes[index + 1]) << 16 | UInt32(bytes[index + 2]) << 8
        | UInt32(bytes[index + 3])
}

/// The big-endian 64-bit integer at `index` of `bytes` (which must hold 8 bytes there).
package func bigEndianUInt64(_ bytes: ArraySlice<UInt8>, at index: Int) -> UInt64 {
    UInt64(bigEndianUInt32(bytes, at: index)) << 32 | UInt64(bigEndianUInt32(bytes, at: index + 4))
}

/// Appends `value` as 4 big-endian bytes.
package func appendBigEndian(_ value: UInt32, to buffer: inout [UInt8]) {
    buffer.append(UInt8(truncatingIfNeeded: value >> 24))
    buffer.append(UInt8(truncatingIfNeeded: value >> 16))
    buffer.append(UInt8(truncatingIfNeeded: value >> 8))
    buffer.append(UInt8(truncatingIfNeeded: value))
}

/// Appends `value` as 8 big-endian bytes.
package func appendBigEndian(_ value: UInt64, to buffer: inout [UInt8]) {
    appendBigEndian(UInt32(truncatingIfNeeded: value >> 32), to: &buffer)
    appendBigEndian(UInt32(truncatingIfNeeded: value), to: &buffer)
}
