/// Hex conversions of object names on raw memory: the hot path of parsing and printing refs.
package enum Hex {
    /// The two lowercase digits of each byte value, high digit first.
    private static let digitPairs: [UInt16] = (0..<256).map { byte in
        let digits = Array("0123456789abcdef".utf8)
        return UInt16(digits[byte >> 4]) | UInt16(digits[byte & 0xf]) << 8
    }

    /// The value of each byte as a hex digit, 0xff for bytes that are not one.
    fileprivate static let values: [UInt8] = (0..<256).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt8(byte) - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt8(byte) - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt8(byte) - UInt8(ascii: "A") + 10
        default: return 0xff
        }
    }

    /// Parses `count` hex digits (at most 16) starting at `start` into an integer; nil if one is
    /// not a hex digit. The caller checks the bounds.
    @inline(__always)
    package static func parse(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, count: Int) -> UInt64? {
        var value: UInt64 = 0
        var invalid: UInt8 = 0
        values.withUnsafeBufferPointer { table in
            for index in start..<(start + count) {
                let digit = table[Int(bytes[index])]
                invalid |= digit
                value = value << 4 | UInt64(digit & 0xf)
            }
        }
        return invalid & 0xf0 == 0 ? value : nil
    }

    /// Parses the `format.hexCount` hex digits of an object name into its four words (for SHA-1
    /// the third holds 8 digits in its high half and the fourth is zero); nil if `text` has
    /// another length or a character that is not a hex digit.
    package static func parseObjectName<Bytes: Collection<UInt8>>(_ text: Bytes, format: ObjectFormat) -> (
        UInt64, UInt64, UInt64, UInt64
    )? {
        guard text.count == format.hexCount else { return nil }
        let parsed = text.withContiguousStorageIfAvailable { bytes -> (UInt64, UInt64, UInt64, UInt64)? in
            guard let w0 = parse(bytes, from: 0, count: 16), let w1 = parse(bytes, from: 16, count: 16) else {
                return nil
            }
            if format == .sha1 {
                guard let w2 = parse(bytes, from: 32, count: 8) else { return nil }
                return (w0, w1, w2 << 32, 0)
            }
            guard let w2 = parse(bytes, from: 32, count: 16), let w3 = parse(bytes, from: 48, count: 16) else {
                return nil
            }
            return (w0, w1, w2, w3)
        }
        if let parsed { return parsed }
        return parseObjectName(Array(text), format: format)
    }

    /// Appends the 16 (or 8) lowercase hex digits of `word`'s bytes, high byte first.
    @inline(__always)
    package static func append(_ word: UInt64, bytes: Int, to buffer: inout [UInt8]) {
        var pairs = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        digitPairs.withUnsafeBufferPointer { table in
            withUnsafeMutableBytes(of: &pairs) { raw in
                let out = raw.bindMemory(to: UInt16.self)
                for index in 0..<bytes {
                    out[index] = table[Int(truncatingIfNeeded: word >> UInt64(8 * (bytes - 1 - index)) & 0xff)]
                }
            }
        }
        withUnsafeBytes(of: &pairs) { raw in buffer.append(contentsOf: raw.prefix(bytes * 2)) }
    }
}

/// The value of one hex digit (either case), or nil: the same table object names are parsed with.
@inline(__always)
package func hexValue(_ digit: UInt8) -> UInt8? { Hex.value(of: digit) }

extension Hex {
    /// The value of one hex digit (either case), or nil.
    @inline(__always)
    static func value(of digit: UInt8) -> UInt8? {
        let value = values[Int(digit)]
        return value == 0xff ? nil : value
    }
}
