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
