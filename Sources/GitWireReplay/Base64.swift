import GitWire

/// Standard base64 (RFC 4648, with padding), for binary bytes in fixtures.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let values: [UInt8: UInt8] = Dictionary(
        uniqueKeysWithValues: alphabet.enumerated().map { ($0.element, UInt8($0.offset)) })

    static func encode<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next()
            let third = iterator.next()
            let word = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            output.append(alphabet[Int(word >> 18 & 63)])
            output.append(alphabet[Int(word >> 12 & 63)])
            output.append(second == nil ? UInt8(ascii: "=") : alphabet[Int(word >> 6 & 63)])
            output.append(third == nil ? UInt8(ascii: "=") : alphabet[Int(word & 63)])
        }
        return String(decoding: output, as: UTF8.self)
    }

    static func decode(_ text: Substring) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 4 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(characters.count / 4 * 3)
        var index = 0
        while index < characters.count {
            var word: UInt32 = 0
            var padding = 0
            for offset in 0..<4 {
                let character = characters[index + offset]
                if character == UInt8(ascii: "=") && offset >= 2 {
                    padding += 1
                    word <<= 6
                } else {
                    guard padding == 0, let value = values[character] else { return nil }
                    word = word << 6 | UInt32(value)
                }
            }
            output.append(UInt8(word >> 16 & 0xff))
            if padding < 2 { output.append(UInt8(word >> 8 & 0xff)) }
            if padding < 1 { output.append(UInt8(word & 0xff)) }
            index += 4
        }
        return output
    }
}
