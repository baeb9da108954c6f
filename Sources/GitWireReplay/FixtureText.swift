import GitWire

/// The quoting of pkt-line payloads in fixtures: printable ASCII and printable UTF-8 as they are,
/// `\n \t \r \0 \\ \"` as in C, anything else as `\xNN`.
enum FixtureText {
    static func escape(_ bytes: [UInt8]) -> String {
        var text = ""
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if let (scalar, length) = printableUTF8(bytes, at: index), length > 1 {
                text.unicodeScalars.append(scalar)
                index += length
                continue
            }
            switch byte {
            case 0x0a: text += "\\n"
            case 0x09: text += "\\t"
            case 0x0d: text += "\\r"
            case 0x00: text += "\\0"
            case 0x5c: text += "\\\\"
            case 0x22: text += "\\\""
            case 0x20...0x7e: text.unicodeScalars.append(Unicode.Scalar(byte))
            default: text += "\\x" + hex(byte)
            }
            index += 1
        }
        return text
    }

    /// How many bytes of `bytes` would be written as `\xNN`.
    static func escapeCount(_ bytes: [UInt8]) -> Int {
        var count = 0
        var index = 0
        while index < bytes.count {
            if let (_, length) = printableUTF8(bytes, at: index), length > 1 {
                index += length
                continue
            }
            let byte = bytes[index]
            if !(0x20...0x7e).contains(byte) && ![0x0a, 0x09, 0x0d, 0x00].contains(byte) { count += 1 }
            index += 1
        }
        return count
    }

    static func unescape(_ text: Substring) -> [UInt8]? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "\\") else {
                bytes.append(byte)
                continue
            }
            switch iterator.next() {
            case UInt8(ascii: "n"): bytes.append(0x0a)
            case UInt8(ascii: "t"): bytes.append(0x09)
            case UInt8(ascii: "r"): bytes.append(0x0d)
            case UInt8(ascii: "0"): bytes.append(0x00)
            case UInt8(ascii: "\\"): bytes.append(0x5c)
            case UInt8(ascii: "\""): bytes.append(0x22)
            case UInt8(ascii: "x"):
                guard let high = iterator.next().flatMap(hexDigit), let low = iterator.next().flatMap(hexDigit) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            default:
                return nil
            }
        }
        return bytes
    }

    /// A multi-byte UTF-8 character at `index` that is printable (not a C1 control), and its length.
    private static func printableUTF8(_ bytes: [UInt8], at index: Int) -> (Unicode.Scalar, Int)? {
        let lead = bytes[index]
        let length: Int
        switch lead {
        case 0xc2...0xdf: length = 2
        case 0xe0...0xef: length = 3
        case 0xf0...0xf4: length = 4
        default: return nil
        }
        guard index + length <= bytes.count else { return nil }
        var decoder = UTF8()
        var iterator = bytes[index..<(index + length)].makeIterator()
        guard case .scalarValue(let scalar) = decoder.decode(&iterator), scalar.value >= 0xa0,
            scalar.properties.generalCategory != .format, scalar.properties.generalCategory != .lineSeparator,
            scalar.properties.generalCategory != .paragraphSeparator
        else { return nil }
        return (scalar, length)
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xf)]])
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}
