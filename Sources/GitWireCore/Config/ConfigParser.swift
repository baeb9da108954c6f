/// Reads git configuration text exactly as git's `config.c` reads it: `[section]`,
/// `[section "subsection"]` and the deprecated `[section.subsection]`; section and key names
/// case-insensitive (lowercased), subsections case-sensitive (the deprecated form lowercases
/// them); `key = value`, and `key` alone (no `=`: boolean true); values with `"` quoting, the
/// escapes `\"`, `\\`, `\n`, `\t` and `\b` (any other escape is an error), backslash-newline
/// continuation, `#` and `;` comments (inline too, outside quotes), leading and trailing
/// whitespace dropped and inner whitespace kept; CRLF line ends; a UTF-8 byte order mark at the
/// start. Pure.
///
/// A file that breaks the syntax yields the entries before the bad line and the line number git
/// reports (`bad config line N in file F`): git hands the entries before the error to its readers
/// (and follows their includes) before it stops.
///
/// Names and values are bytes to git; they are read here as UTF-8, with bytes that are not
/// UTF-8 read as U+FFFD. A NUL byte ends a name or value where git's C strings end it.
public enum ConfigParser {
    /// What a configuration text holds: its entries in order, and the line git stops at if the text
    /// breaks the syntax.
    public struct Result: Hashable, Sendable {
        /// The entries read, in order (up to the bad line, if any).
        public var entries: [ConfigEntry]
        /// The line git reports in `bad config line N`, or nil if the whole text was read.
        public var errorLine: Int?
    }

    /// Reads `text`, giving each entry `scope` and `origin`.
    public static func parse(_ text: some Collection<UInt8>, scope: ConfigScope? = nil, origin: ConfigOrigin? = nil)
        -> Result
    {
        var parser = Parser(Array(text), scope: scope, origin: origin)
        let ok = parser.run()
        return Result(entries: parser.entries, errorLine: ok ? nil : parser.reader.line)
    }

    /// The entries of `text`, or git's error for it (`bad config line N in <origin>`).
    public static func entries(
        _ text: some Collection<UInt8>, scope: ConfigScope? = nil, origin: ConfigOrigin = .blob("")
    ) throws(ConfigError) -> [ConfigEntry] {
        let result = parse(text, scope: scope, origin: origin)
        if let line = result.errorLine { throw .badLine(line: line, origin: origin, reason: nil) }
        return result.entries
    }
}

/// git's locale-independent ASCII character classes (`sane_ctype`): space is only tab, line
/// feed, carriage return and space.
package enum GitCType {
    package static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0a || c == 0x0d }
    package static func isAlpha(_ c: UInt8) -> Bool { (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a }
    package static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
    package static func isAlnum(_ c: UInt8) -> Bool { isAlpha(c) || isDigit(c) }
    /// A byte of a section or key name: letters, digits and `-`.
    package static func isKeyChar(_ c: UInt8) -> Bool { isAlnum(c) || c == UInt8(ascii: "-") }
    package static func lower(_ c: UInt8) -> UInt8 { c >= 0x41 && c <= 0x5a ? c | 0x20 : c }
    package static func isUpper(_ c: UInt8) -> Bool { c >= 0x41 && c <= 0x5a }
    package static func isLower(_ c: UInt8) -> Bool { c >= 0x61 && c <= 0x7a }
}

/// git's character source: CRLF read as LF, the end of the text read as one more LF (and
/// counted as a line, each time it is read), a line count kept as git keeps it for its messages.
struct ConfigReader {
    let bytes: [UInt8]
    var position = 0
    var line = 1
    var atEnd = false
    private var total = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    private mutating func raw() -> UInt8? {
        guard position < bytes.count else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func next() -> UInt8 {
        var c = raw()
        if c == 0x0d {
            let following = raw()
            if following != 0x0a {
                if following != nil { position -= 1 }
            } else {
                c = 0x0a
            }
        }
        if c != nil {
            total += 1
            // git refuses to read past INT_MAX bytes: it ends the text there, on a byte that
            // breaks the syntax.
            if total > Int(Int32.max) {
                atEnd = true
                return 0
            }
        }
        guard let c else {
            atEnd = true
            line += 1
            return 0x0a
        }
        if c == 0x0a { line += 1 }
        return c
    }
}

private struct Parser {
    var reader: ConfigReader
    var entries: [ConfigEntry] = []
    let scope: ConfigScope?
    let origin: ConfigOrigin?

    init(_ bytes: [UInt8], scope: ConfigScope?, origin: ConfigOrigin?) {
        reader = ConfigReader(bytes)
        self.scope = scope
        self.origin = origin
    }

    private static let byteOrderMark: [UInt8] = [0xef, 0xbb, 0xbf]

    /// Reads everything; false at the first byte that breaks the syntax (`reader.line` is then the
    /// line git reports).
    mutating func run() -> Bool {
        var comment = false
        var base: [UInt8] = []
        var bomMatched = 0
        var bomPossible = true
        while true {
            let c = reader.next()
            if bomPossible && bomMatched < Self.byteOrderMark.count {
                if c == Self.byteOrderMark[bomMatched] {
                    bomMatched += 1
                    continue
                }
                // Part of a byte order mark is an error; none at all is the usual case.
                if bomMatched != 0 { return false }
                bomPossible = false
            }
            if c == 0x0a {
                if reader.atEnd { return true }
                comment = false
                continue
            }
            if comment { continue }
            if GitCType.isSpace(c) { continue }
            if c == UInt8(ascii: "#") || c == UInt8(ascii: ";") {
                comment = true
                continue
            }
            if c == UInt8(ascii: "[") {
                base.removeAll(keepingCapacity: true)
                guard sectionHeader(&base), !base.isEmpty else { return false }
                base.append(UInt8(ascii: "."))
                continue
            }
            guard GitCType.isAlpha(c) else { return false }
            var name = base
            name.append(GitCType.lower(c))
            guard entry(name) else { return false }
        }
    }

    /// After `[`: the section name (lowercased), and `.subsection` for either form.
    private mutating func sectionHeader(_ name: inout [UInt8]) -> Bool {
        while true {
            let c = reader.next()
            if reader.atEnd { return false }
            if c == UInt8(ascii: "]") { return true }
            if GitCType.isSpace(c) { return extendedSectionHeader(&name, after: c) }
            guard GitCType.isKeyChar(c) || c == UInt8(ascii: ".") else { return false }
            name.append(GitCType.lower(c))
        }
    }

    /// `[section "subsection"]` after the section name: whitespace, then the quoted subsection
    /// (a backslash takes the next byte as it is), then `]` at once.
    private mutating func extendedSectionHeader(_ name: inout [UInt8], after first: UInt8) -> Bool {
        var c = first
        repeat {
            if c == 0x0a {
                reader.line -= 1
                return false
            }
            c = reader.next()
        } while GitCType.isSpace(c)
        guard c == UInt8(ascii: "\"") else { return false }
        name.append(UInt8(ascii: "."))
        while true {
            var c = reader.next()
            if c == 0x0a {
                reader.line -= 1
                return false
            }
            if c == UInt8(ascii: "\"") { break }
            if c == UInt8(ascii: "\\") {
                c = reader.next()
                if c == 0x0a {
                    reader.line -= 1
                    return false
                }
            }
            name.append(c)
        }
        return reader.next() == UInt8(ascii: "]")
    }

    /// The rest of a key (its first letter is in `name`), then ` = value` or the end of the line.
    private mutating func entry(_ name: [UInt8]) -> Bool {
        var name = name
        var c: UInt8
        while true {
            c = reader.next()
            if reader.atEnd { break }
            if !GitCType.isKeyChar(c) { break }
            name.append(GitCType.lower(c))
        }
        while c == UInt8(ascii: " ") || c == UInt8(ascii: "\t") { c = reader.next() }
        var value: [UInt8]?
        if c != 0x0a {
            guard c == UInt8(ascii: "="), let text = self.value() else { return false }
            value = text
        }
        // The line end is read already; git's line for the entry is the one it ends on.
        reader.line -= 1
        entries.append(
            ConfigEntry(
                name: Self.text(name), value: value.map(Self.text), scope: scope, origin: origin, line: reader.line))
        reader.line += 1
        return true
    }

    /// A value after `=`, up to the end of its (last continued) line.
    private mutating func value() -> [UInt8]? {
        var quoted = false
        var comment = false
        var spaces = 0
        var value: [UInt8] = []
        while true {
            var c = reader.next()
            if c == 0x0a {
                if quoted {
                    reader.line -= 1
                    return nil
                }
                return value
            }
            if comment { continue }
            if GitCType.isSpace(c) && !quoted {
                if !value.isEmpty { spaces += 1 }
                continue
            }
            if !quoted && (c == UInt8(ascii: ";") || c == UInt8(ascii: "#")) {
                comment = true
                continue
            }
            if spaces > 0 {
                value.append(contentsOf: repeatElement(UInt8(ascii: " "), count: spaces))
                spaces = 0
            }
            if c == UInt8(ascii: "\\") {
                c = reader.next()
                switch c {
                case 0x0a: continue
                case UInt8(ascii: "t"): c = 0x09
                case UInt8(ascii: "b"): c = 0x08
                case UInt8(ascii: "n"): c = 0x0a
                case UInt8(ascii: "\\"), UInt8(ascii: "\""): break
                default: return nil
                }
                value.append(c)
                continue
            }
            if c == UInt8(ascii: "\"") {
                quoted.toggle()
                continue
            }
            value.append(c)
        }
    }

    /// Bytes as git's C strings hold them (up to a NUL), read as UTF-8.
    private static func text(_ bytes: [UInt8]) -> String {
        let end = bytes.firstIndex(of: 0) ?? bytes.count
        return String(decoding: bytes[..<end], as: UTF8.self)
    }
}
