/// Writes configuration entries as text git reads back to the same entries: a `[section]` or
/// `[section "subsection"]` header for each run of entries of one section, tab-indented
/// `key = value` lines (`key` alone for an entry with no value), values quoted and escaped as git
/// quotes them (quotes when a value starts or ends with a space or holds `;`, `#` or a carriage
/// return; `\"`, `\\`, `\n` and `\t` escaped). Pure.
public enum ConfigWriter {
    /// The text of `entries` (their names canonical, as ``ConfigParser`` gives them). Throws
    /// ``ConfigError/invalidKey(reason:)`` for an entry git's syntax cannot hold: a name whose
    /// section or key git would not read back as written, a subsection with a newline or NUL, a
    /// value with a NUL, or a name with no section after one with a section.
    public static func text(_ entries: [ConfigEntry]) throws(ConfigError) -> [UInt8] {
        var text: [UInt8] = []
        var current: (section: Substring, subsection: Substring?)?
        for entry in entries {
            let name = entry.name
            guard name.utf8.contains(UInt8(ascii: ".")) else {
                // Only the lines before the first header have no section.
                guard current == nil else { throw .invalidKey(reason: "no section can be written for: \(name)") }
                try checkKey(name[...], entry: name)
                appendEntry(&text, key: name[...], value: entry.value)
                try checkValue(entry.value, entry: name)
                continue
            }
            let section = entry.section
            let subsection = entry.subsection
            try checkKey(entry.key, entry: name)
            try checkValue(entry.value, entry: name)
            if current == nil || current!.section != section || current!.subsection != subsection {
                guard section.utf8.allSatisfy({ GitCType.isKeyChar($0) && !GitCType.isUpper($0) }) else {
                    throw .invalidKey(reason: "invalid section: \(name)")
                }
                text.append(UInt8(ascii: "["))
                text.append(contentsOf: section.utf8)
                if let subsection {
                    guard !subsection.utf8.contains(0x0a), !subsection.utf8.contains(0) else {
                        throw .invalidKey(reason: "invalid subsection: \(name)")
                    }
                    text.append(contentsOf: " \"".utf8)
                    for byte in subsection.utf8 {
                        if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { text.append(UInt8(ascii: "\\")) }
                        text.append(byte)
                    }
                    text.append(UInt8(ascii: "\""))
                } else if section.isEmpty {
                    throw .invalidKey(reason: "invalid section: \(name)")
                }
                text.append(contentsOf: "]\n".utf8)
                current = (section, subsection)
            }
            appendEntry(&text, key: entry.key, value: entry.value)
        }
        return text
    }

    /// A value as git writes it after `key = ` (see ``ConfigWriter``).
    public static func quoted(_ value: String) -> [UInt8] {
        var escaped: [UInt8] = []
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): escaped += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): escaped += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0a: escaped += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x09: escaped += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            default: escaped.append(byte)
            }
        }
        let bytes = value.utf8
        let needsQuotes =
            bytes.first == UInt8(ascii: " ") || bytes.last == UInt8(ascii: " ")
            || bytes.contains(UInt8(ascii: ";")) || bytes.contains(UInt8(ascii: "#")) || bytes.contains(0x0d)
        return needsQuotes ? [UInt8(ascii: "\"")] + escaped + [UInt8(ascii: "\"")] : escaped
    }

    private static func appendEntry(_ text: inout [UInt8], key: Substring, value: String?) {
        text.append(0x09)
        text.append(contentsOf: key.utf8)
        if let value {
            text.append(contentsOf: " = ".utf8)
            text.append(contentsOf: quoted(value))
        }
        text.append(0x0a)
    }

    private static func checkKey(_ key: Substring, entry: String) throws(ConfigError) {
        guard let first = key.utf8.first, GitCType.isAlpha(first),
            key.utf8.allSatisfy({ GitCType.isKeyChar($0) && !GitCType.isUpper($0) })
        else { throw .invalidKey(reason: "invalid key: \(entry)") }
    }

    private static func checkValue(_ value: String?, entry: String) throws(ConfigError) {
        guard let value else { return }
        guard !value.utf8.contains(0) else { throw .invalidKey(reason: "value with a NUL byte: \(entry)") }
    }
}
