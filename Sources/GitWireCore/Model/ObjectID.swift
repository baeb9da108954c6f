/// A 20-byte SHA-1 object name. Stored inline as three integers, so sorting, hashing and
/// comparing never touch the heap; the order is the bytes' order, as in a pack index.
public struct ObjectID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Bytes 0 to 7, big-endian.
    package var high: UInt64
    /// Bytes 8 to 15, big-endian.
    package var middle: UInt64
    /// Bytes 16 to 19, big-endian.
    package var low: UInt32

    /// The number of bytes in an object name.
    public static let byteCount = 20

    /// The all-zero name git uses for "no object".
    public static let zero = ObjectID(high: 0, middle: 0, low: 0)

    @usableFromInline
    package init(high: UInt64, middle: UInt64, low: UInt32) {
        self.high = high
        self.middle = middle
        self.low = low
    }

    /// Reads the first 20 raw bytes of `bytes`; nil if fewer are there.
    /// Inlinable: other modules (pack indexes) call it in their hottest loops, where an
    /// unspecialized generic would box every byte.
    @inlinable
    public init?<Bytes: Collection<UInt8>>(bytes: Bytes) where Bytes.Index == Int {
        guard bytes.count >= 20 else { return nil }
        let start = bytes.startIndex
        var high: UInt64 = 0
        var middle: UInt64 = 0
        var low: UInt32 = 0
        for i in 0..<8 { high = high << 8 | UInt64(bytes[start + i]) }
        for i in 8..<16 { middle = middle << 8 | UInt64(bytes[start + i]) }
        for i in 16..<20 { low = low << 8 | UInt32(bytes[start + i]) }
        self.init(high: high, middle: middle, low: low)
    }

    /// Parses 40 hex digits (either case); nil if the text is anything else.
    public init?<Text: Collection<UInt8>>(hex: Text) {
        guard let (high, middle, low) = Hex.parseObjectName(hex) else { return nil }
        self.init(high: high, middle: middle, low: low)
    }

    /// Parses 40 hex digits (either case); nil if the text is anything else.
    public init?(_ hex: String) { self.init(hex: Array(hex.utf8)) }

    /// The 20 raw bytes.
    public var bytes: [UInt8] {
        var result = [UInt8]()
        result.reserveCapacity(20)
        append(to: &result)
        return result
    }

    /// Appends the 20 raw bytes to `buffer`.
    public func append(to buffer: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) {
            buffer.append(UInt8(truncatingIfNeeded: high >> UInt64(shift)))
        }
        for shift in stride(from: 56, through: 0, by: -8) {
            buffer.append(UInt8(truncatingIfNeeded: middle >> UInt64(shift)))
        }
        for shift in stride(from: 24, through: 0, by: -8) {
            buffer.append(UInt8(truncatingIfNeeded: low >> UInt32(shift)))
        }
    }

    /// The first byte, which picks the fan-out bucket in a pack index.
    public var firstByte: UInt8 { UInt8(truncatingIfNeeded: high >> 56) }

    /// The 40 lowercase hex digits, as bytes.
    public var hexBytes: [UInt8] {
        var result = [UInt8]()
        result.reserveCapacity(40)
        appendHex(to: &result)
        return result
    }

    /// Appends the 40 lowercase hex digits to `buffer`.
    public func appendHex(to buffer: inout [UInt8]) {
        Hex.append(high, bytes: 8, to: &buffer)
        Hex.append(middle, bytes: 8, to: &buffer)
        Hex.append(UInt64(low), bytes: 4, to: &buffer)
    }

    /// The 40 lowercase hex digits.
    public var hex: String { String(decoding: hexBytes, as: UTF8.self) }

    /// The text shown to users and in logs.
    public var description: String { hex }

    /// Whether this is the all-zero name.
    public var isZero: Bool { self == .zero }

    /// Orders object names by their bytes, as a pack index does.
    public static func < (a: ObjectID, b: ObjectID) -> Bool {
        if a.high != b.high { return a.high < b.high }
        if a.middle != b.middle { return a.middle < b.middle }
        return a.low < b.low
    }
}
