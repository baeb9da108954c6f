/// Bytes as readable text: printable ASCII as is, everything else as `\n`, `\0`, `\xNN`.
package func escapedForDisplay<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
    var text = ""
    for byte in bytes {
        switch byte {
        case 0x0a: text += "\\n"
        case 0x00: text += "\\0"
        case 0x5c: text += "\\\\"
        case 0x20...0x7e: text.unicodeScalars.append(Unicode.Scalar(byte))
        default: text += "\\x" + String(byte, radix: 16).leftPadded(to: 2)
        }
    }
    return text
}

extension String {
    /// The string with `pad` added in front up to `width` characters.
    package func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}

/// Text from a server made safe to show on a terminal, as git shows its `fatal:` messages: each
/// control character but tab and line feed becomes `?` (C0 controls, which include escape,
/// carriage return and bell, and DEL), so a server cannot move the cursor, rewrite the window
/// title or colour the user's terminal. Stricter than git in one way: C1 controls (U+0080 to
/// U+009F, which some terminals take as escape sequences too) become `?` as well. Everything else
/// stays as it is, UTF-8 included.
package func maskedForTerminal(_ text: String) -> String {
    var result = ""
    result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
    for scalar in text.unicodeScalars {
        if isMaskedControl(scalar.value) {
            result.unicodeScalars.append("?")
        } else {
            result.unicodeScalars.append(scalar)
        }
    }
    return result
}

/// Bytes from a server made safe to show on a terminal (see ``maskedForTerminal(_:)``); a C1
/// control is its two UTF-8 bytes, which become one `?`. Invalid UTF-8 is left as it is.
package func maskedForTerminal(_ bytes: [UInt8]) -> [UInt8] {
    var result: [UInt8] = []
    result.reserveCapacity(bytes.count)
    var index = 0
    while index < bytes.count {
        let byte = bytes[index]
        if byte == 0xc2, index + 1 < bytes.count, (0x80...0x9f).contains(bytes[index + 1]) {
            result.append(UInt8(ascii: "?"))
            index += 2
            continue
        }
        result.append(byte < 0x80 && isMaskedControl(UInt32(byte)) ? UInt8(ascii: "?") : byte)
        index += 1
    }
    return result
}

/// Whether `value` (a Unicode scalar or, below 0x80, a byte) is a control character to mask.
private func isMaskedControl(_ value: UInt32) -> Bool {
    switch value {
    case 0x09, 0x0a: return false
    case 0x00...0x1f, 0x7f, 0x80...0x9f: return true
    default: return false
    }
}
