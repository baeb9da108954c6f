/// An object name: 20 bytes (SHA-1) or 32 (SHA-256), with its ``ObjectFormat``. Stored inline as
/// four integers and the format, so sorting, hashing and comparing never touch the heap; the
/// order is the bytes' order, as in a pack index. Names of different formats are never equal.
///
/// Parsers take the width from the format they were given (the connection's or the
/// repository's): `ObjectID(hex:format:)` and `ObjectID(bytes:format:)` read exactly that many
/// digits or bytes. `ObjectID("…")` guesses the format from the length, for literals.
public struct ObjectID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Bytes 0 to 7, big-endian.
    @usableFromInline package var w0: UInt64
    /// Bytes 8 to 15, big-endian.
    @usableFromInline package var w1: UInt64
    /// Bytes 16 to 23, big-endian (SHA-1: bytes 16 to 19 in the high half, the low half zero).
    @usableFromInline package var w2: UInt64
    /// Bytes 24 to 31, big-endian (SHA-1: zero).
    @usableFromInline package var w3: UInt64
    /// The hash function that made the name.
    public let format: ObjectFormat

    /// A name from its words, as read big-endian; for SHA-1 only the high half of `w2` counts
    /// (the rest must be zero).
    @inlinable
    package init(words w0: UInt64, _ w1: UInt64, _ w2: UInt64, _ w3: UInt64, format: ObjectFormat) {
        self.w0 = w0
        self.w1 = w1
        self.w2 = w2
        self.w3 = w3
        self.format = format
    }

    /// The all-zero name of `format`, which git uses for "no object".
    @inlinable
    public static func zero(_ format: ObjectFormat) -> ObjectID { format.zeroID }

    /// Reads the first `format.byteCount` raw bytes of `bytes`; nil if fewer are there.
    /// Inlinable: other modules (pack indexes) call it in their hottest loops, where an
    /// unspecialized generic would box every byte.
    @inlinable
    public init?<Bytes: Collection<UInt8>>(bytes: Bytes, format: ObjectFormat) where Bytes.Index == Int {
        guard bytes.count >= format.byteCount else { return nil }
        let start = bytes.startIndex
        @inline(__always) func word(_ from: Int, _ count: Int) -> UInt64 {
            var value: UInt64 = 0
            for i in from..<(from + count) { value = value << 8 | UInt64(bytes[start + i]) }
            return value << UInt64(8 * (8 - count))
        }
        if format == .sha1 {
            self.init(words: word(0, 8), word(8, 8), word(16, 4), 0, format: .sha1)
        } else {
            self.init(words: word(0, 8), word(8, 8), word(16, 8), word(24, 8), format: .sha256)
        }
    }

    /// Parses exactly `format.hexCount` hex digits (either case); nil if the text is anything else.
    public init?<Text: Collection<UInt8>>(hex: Text, format: ObjectFormat) {
        guard let words = Hex.parseObjectName(hex, format: format) else { return nil }
        self.init(words: words.0, words.1, words.2, words.3, format: format)
    }

    /// Parses 40 hex digits as a SHA-1 name or 64 as a SHA-256 one (either case); nil if the
    /// text is anything else. For literals and user input: parsers of protocol or repository
    /// data use ``init(hex:format:)`` with the format they were given.
    public init?(_ hex: String) {
        let bytes = Array(hex.utf8)
        switch bytes.count {
        case ObjectFormat.sha1.hexCount: self.init(hex: bytes, format: .sha1)
        case ObjectFormat.sha256.hexCount: self.init(hex: bytes, format: .sha256)
        default: return nil
        }
    }

    /// The number of raw bytes: 20 or 32.
    @inlinable
    public var byteCount: Int { format.byteCount }

    /// The raw bytes.
    public var bytes: [UInt8] {
        var result = [UInt8]()
        result.reserveCapacity(byteCount)
        append(to: &result)
        return result
    }

    /// Appends the raw bytes to `buffer`.
    @inlinable
    public func append(to buffer: inout [UInt8]) {
        var words = (w0.bigEndian, w1.bigEndian, w2.bigEndian, w3.bigEndian)
        let count = byteCount
        withUnsafeBytes(of: &words) { raw in buffer.append(contentsOf: raw.prefix(count)) }
    }

    /// The first byte, which picks the fan-out bucket in a pack index.
    @inlinable
    public var firstByte: UInt8 { UInt8(truncatingIfNeeded: w0 >> 56) }

    /// The lowercase hex digits (40 or 64), as bytes.
    public var hexBytes: [UInt8] {
        var result = [UInt8]()
        result.reserveCapacity(format.hexCount)
        appendHex(to: &result)
        return result
    }

    /// Appends the lowercase hex digits (40 or 64) to `buffer`.
    public func appendHex(to buffer: inout [UInt8]) {
        Hex.append(w0, bytes: 8, to: &buffer)
        Hex.append(w1, bytes: 8, to: &buffer)
        if format == .sha1 {
            Hex.append(w2 >> 32, bytes: 4, to: &buffer)
        } else {
            Hex.append(w2, bytes: 8, to: &buffer)
            Hex.append(w3, bytes: 8, to: &buffer)
        }
    }

    /// The lowercase hex digits (40 or 64).
    public var hex: String { String(decoding: hexBytes, as: UTF8.self) }

    /// The text shown to users and in logs.
    public var description: String { hex }

    /// Whether this is the all-zero name (of its format).
    @inlinable
    public var isZero: Bool { w0 | w1 | w2 | w3 == 0 }

    /// Whether two names are the same name of the same format.
    @inlinable
    public static func == (a: ObjectID, b: ObjectID) -> Bool {
        a.w0 == b.w0 && a.w1 == b.w1 && a.w2 == b.w2 && a.w3 == b.w3 && a.format == b.format
    }

    /// Hashes the name (a SHA-1 name's unused word is left out).
    @inlinable
    public func hash(into hasher: inout Hasher) {
        hasher.combine(w0)
        hasher.combine(w1)
        hasher.combine(w2)
        if format == .sha256 { hasher.combine(w3) }
    }

    /// Orders object names by their bytes, as a pack index does (SHA-1 names before SHA-256
    /// ones that share their first 20 bytes; a list holds one format anyway).
    @inlinable
    public static func < (a: ObjectID, b: ObjectID) -> Bool {
        if a.w0 != b.w0 { return a.w0 < b.w0 }
        if a.w1 != b.w1 { return a.w1 < b.w1 }
        if a.w2 != b.w2 { return a.w2 < b.w2 }
        if a.w3 != b.w3 { return a.w3 < b.w3 }
        return a.format.rawValue < b.format.rawValue
    }
}
