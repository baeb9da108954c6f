/// Edits the text of one configuration file as git's `git_config_set_multivar_in_file` edits it:
/// an entry replaced, removed or added in place, every other byte (comments, spacing, includes,
/// other sections) kept. A replaced entry takes the place of the old one (and the blanks before
/// it on its line); a new entry goes after the last entry (or header) of the last section of its
/// name, or at the end under a new `[section "subsection"]` header written as git writes it;
/// removing the only entries of a section with no comment around it removes the header too.
/// Section and key names match case-insensitively, subsections case-sensitively (the deprecated
/// `[section.subsection]` form case-insensitively for the header, as git compares it). Pure: the
/// locked write of the file is the caller's.
public struct ConfigEditor: Hashable, Sendable {
    /// The file's text (empty with ``exists`` false for a file that does not exist yet).
    public private(set) var text: [UInt8]
    /// Whether the file exists (a set on a missing file creates it).
    public private(set) var exists: Bool
    /// git's `warning:` lines from the edits so far (`branch.x.merge has multiple values`).
    public private(set) var warnings: [String] = []

    /// An editor for `text`, or for a file that does not exist yet (nil).
    public init(_ text: [UInt8]?) {
        self.text = text ?? []
        exists = text != nil
    }

    /// What an edit did: git's `CONFIG_NOTHING_SET` (nothing to remove, or several values where
    /// one was to be replaced) leaves the text as it was.
    public enum Outcome: Hashable, Sendable {
        /// The text was changed.
        case changed
        /// Nothing was set: git returns 5 (`CONFIG_NOTHING_SET`).
        case nothingSet
    }

    /// `git config <key> <value>` (or `git config --unset <key>` with a nil value): replaces the
    /// one entry of that name, adds it if there is none; fails with `.nothingSet` when there are
    /// several. Throws ``ConfigError/invalidKey(reason:)`` for a name git refuses, and
    /// ``ConfigError/badLine(line:origin:reason:)`` (origin `file`) for a text git cannot read.
    @discardableResult
    public mutating func set(_ key: String, to value: String?, file: String = "config") throws(ConfigError)
        -> Outcome
    {
        try edit(key, value: value, addOnly: false, file: file)
    }

    /// `git config --add <key> <value>`: adds an entry after the others of its section.
    public mutating func add(_ key: String, value: String, file: String = "config") throws(ConfigError) {
        _ = try edit(key, value: value, addOnly: true, file: file)
    }

    // MARK: - git's algorithm

    private enum EventType { case whitespace, comment, section, entry }

    private struct Event {
        var begin: Int
        var end: Int
        var type: EventType
        var isKeysSection = false
    }

    /// A key split as git's `git_config_parse_key` splits it: the canonical name (section and
    /// variable lowercased) and the length of its `section[.subsection]` part.
    private static func parseKey(_ key: String) throws(ConfigError) -> (canonical: [UInt8], baseLength: Int) {
        let bytes = Array(key.utf8)
        guard let last = bytes.lastIndex(of: UInt8(ascii: ".")), last > 0 else {
            throw .invalidKey(reason: "key does not contain a section: \(key)")
        }
        guard last + 1 < bytes.count else { throw .invalidKey(reason: "key does not contain variable name: \(key)") }
        let first = bytes.firstIndex(of: UInt8(ascii: "."))!
        var canonical: [UInt8] = []
        for (index, byte) in bytes.enumerated() {
            if index < first || index > last {
                guard GitCType.isKeyChar(byte) else { throw .invalidKey(reason: "invalid key: \(key)") }
                if index == last + 1 && !GitCType.isAlpha(byte) { throw .invalidKey(reason: "invalid key: \(key)") }
                canonical.append(GitCType.lower(byte))
            } else {
                if byte == 0x0a || byte == 0 { throw .invalidKey(reason: "invalid key (newline): \(key)") }
                canonical.append(byte)
            }
        }
        return (canonical, last)
    }

    private mutating func edit(_ key: String, value: String?, addOnly: Bool, file: String) throws(ConfigError)
        -> Outcome
    {
        let (canonical, baseLength) = try Self.parseKey(key)
        if let value, value.utf8.contains(0) { throw .invalidKey(reason: "value with a NUL byte: \(key)") }
        let original = Array(key.utf8)
        guard exists else {
            guard let value else { return .nothingSet }
            text = Self.section(original, baseLength: baseLength) + Self.pair(original, baseLength: baseLength, value)
            exists = true
            return .changed
        }
        var scan = Scan(text: text, key: canonical, baseLength: baseLength, addOnly: addOnly)
        guard scan.run() else { throw .badLine(line: scan.reader.line, origin: .file(file), reason: nil) }
        warnings += scan.warnings
        if (scan.seen.isEmpty && value == nil) || scan.seen.count > 1 { return .nothingSet }
        var seen = scan.seen
        if seen.isEmpty {
            seen = [scan.sectionCandidate ?? (scan.parsed.isEmpty ? 0 : scan.parsed.count - 1)]
        }
        let parsed = scan.parsed.isEmpty ? [Event(begin: 0, end: 0, type: .whitespace)] : scan.parsed
        var out: [UInt8] = []
        var copyBegin = 0
        var index = 0
        while index < seen.count {
            let event = seen[index]
            var copyEnd: Int
            var replaceEnd: Int
            if !scan.keySeen {
                copyEnd = parsed[event].end
                if copyEnd > 0 && copyEnd < text.count && text[copyEnd - 1] != 0x0a && text[copyEnd] == 0x0a {
                    copyEnd += 1
                }
                replaceEnd = copyEnd
            } else {
                replaceEnd = parsed[event].end
                copyEnd = parsed[event].begin
                if value == nil {
                    Self.maybeRemoveSection(parsed, seen: seen, begin: &copyEnd, end: &replaceEnd, index: &index)
                }
                while copyEnd > 0, GitCType.isSpace(text[copyEnd - 1]), text[copyEnd - 1] != 0x0a { copyEnd -= 1 }
            }
            if copyEnd > copyBegin {
                out += text[copyBegin..<copyEnd]
                if text[copyEnd - 1] != 0x0a { out.append(0x0a) }
            }
            copyBegin = replaceEnd
            index += 1
        }
        if let value {
            if !scan.sectionSeen { out += Self.section(original, baseLength: baseLength) }
            out += Self.pair(original, baseLength: baseLength, value)
        }
        if copyBegin < text.count { out += text[copyBegin...] }
        text = out
        return .changed
    }

    /// git's `maybe_remove_section`: widens a removal to the whole section when the entries removed
    /// are its only ones and no comment is before, in or after it.
    private static func maybeRemoveSection(
        _ parsed: [Event], seen: [Int], begin: inout Int, end: inout Int, index: inout Int
    ) {
        var seenIndex = index
        var sectionSeen = false
        var i = seen[seenIndex]
        while i > 0 {
            let type = parsed[i - 1].type
            if type == .comment { return }
            if type == .entry {
                if !sectionSeen { return }
                break
            }
            if type == .section {
                if !parsed[i - 1].isKeysSection { break }
                sectionSeen = true
            }
            i -= 1
        }
        let newBegin = parsed[i].begin
        i = seen[seenIndex] + 1
        while i < parsed.count {
            let type = parsed[i].type
            if type == .comment { return }
            if type == .section {
                if parsed[i].isKeysSection {
                    i += 1
                    continue
                }
                break
            }
            if type == .entry {
                seenIndex += 1
                if seenIndex < seen.count && i == seen[seenIndex] {
                    i += 1
                    continue
                }
                return
            }
            i += 1
        }
        index = seenIndex
        begin = newBegin
        end = i < parsed.count ? parsed[i].begin : parsed[parsed.count - 1].end
    }

    /// git's `store_create_section`: the header for the key as given (case kept).
    private static func section(_ key: [UInt8], baseLength: Int) -> [UInt8] {
        guard let dot = key[..<baseLength].firstIndex(of: UInt8(ascii: ".")) else {
            return [UInt8(ascii: "[")] + key[..<baseLength] + Array("]\n".utf8)
        }
        var out = [UInt8(ascii: "[")] + key[..<dot] + Array(" \"".utf8)
        for byte in key[(dot + 1)..<baseLength] {
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { out.append(UInt8(ascii: "\\")) }
            out.append(byte)
        }
        return out + Array("\"]\n".utf8)
    }

    /// git's `write_pair`: a tab, the variable as given, ` = ` and the value quoted as git 2.39 quotes
    /// it (quotes around a value with a leading or trailing space, `;`, `#` or a carriage return).
    private static func pair(_ key: [UInt8], baseLength: Int, _ value: String) -> [UInt8] {
        let bytes = Array(value.utf8)
        let quotes =
            bytes.first == UInt8(ascii: " ") || bytes.last == UInt8(ascii: " ")
            || bytes.contains(UInt8(ascii: ";")) || bytes.contains(UInt8(ascii: "#")) || bytes.contains(0x0d)
        var out: [UInt8] = [0x09] + key[(baseLength + 1)...] + Array(" = ".utf8)
        if quotes { out.append(UInt8(ascii: "\"")) }
        for byte in bytes {
            switch byte {
            case 0x0a: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), byte]
            default: out.append(byte)
            }
        }
        if quotes { out.append(UInt8(ascii: "\"")) }
        out.append(0x0a)
        return out
    }

    /// One pass of git's parser over the text with its event callbacks (`store_aux_event`,
    /// `store_aux`): the events' byte ranges and which of them match the key.
    private struct Scan {
        var reader: EventReader
        let key: [UInt8]
        let baseLength: Int
        let addOnly: Bool
        var parsed: [Event] = []
        /// Matching entries (`seen_nr` of git's `seen`).
        var seen: [Int] = []
        /// git's `seen[seen_nr]` written without a match: the last header or entry of the key's
        /// section.
        var sectionCandidate: Int?
        var keySeen = false
        var sectionSeen = false
        var inKeysSection = false
        var warnings: [String] = []
        private var variable: [UInt8] = []
        private var caseInsensitiveSection = false
        private var previous: (type: EventType, offset: Int)?

        init(text: [UInt8], key: [UInt8], baseLength: Int, addOnly: Bool) {
            reader = EventReader(text)
            self.key = key
            self.baseLength = baseLength
            self.addOnly = addOnly
        }

        /// git's `do_event`: ends the previous event where this one starts.
        private mutating func event(_ type: EventType?) {
            if type == .whitespace && previous?.type == .whitespace { return }
            let offset = type == nil ? reader.position : reader.position - 1
            if let previous {
                var event = Event(begin: previous.offset, end: offset, type: previous.type)
                if previous.type == .section {
                    let matches =
                        variable.count - 1 == baseLength
                        && (caseInsensitiveSection
                            ? zip(variable[..<baseLength], key[..<baseLength]).allSatisfy {
                                GitCType.lower($0) == GitCType.lower($1)
                            }
                            : variable[..<baseLength].elementsEqual(key[..<baseLength]))
                    event.isKeysSection = matches
                    inKeysSection = matches
                    if matches {
                        sectionSeen = true
                        sectionCandidate = parsed.count
                    }
                }
                parsed.append(event)
            }
            if let type { previous = (type, offset) }
        }

        /// An entry read whole (`store_aux`).
        private mutating func entry(_ name: [UInt8]) {
            let matches = !addOnly && name == key
            if keySeen {
                if matches {
                    if seen.count == 1 {
                        warnings.append("\(String(decoding: name, as: UTF8.self)) has multiple values")
                    }
                    seen.append(parsed.count)
                }
            } else if inKeysSection {
                sectionCandidate = parsed.count
                sectionSeen = true
                if matches {
                    seen.append(parsed.count)
                    keySeen = true
                }
            }
        }

        /// git's `git_parse_source`; false where git reports a bad line.
        mutating func run() -> Bool {
            let bom: [UInt8] = [0xef, 0xbb, 0xbf]
            var bomMatched: Int? = 0
            var comment = false
            var base = 0
            while true {
                let c = reader.next()
                if let matched = bomMatched, matched < 3 {
                    if c == bom[matched] && !reader.atEnd {
                        bomMatched = matched + 1
                        continue
                    }
                    if matched != 0 { return false }
                    bomMatched = nil
                }
                if c == 0x0a {
                    if reader.atEnd {
                        event(nil)
                        return true
                    }
                    event(.whitespace)
                    comment = false
                    continue
                }
                if comment { continue }
                if GitCType.isSpace(c) {
                    event(.whitespace)
                    continue
                }
                if c == UInt8(ascii: "#") || c == UInt8(ascii: ";") {
                    event(.comment)
                    comment = true
                    continue
                }
                if c == UInt8(ascii: "[") {
                    event(.section)
                    variable = []
                    guard readSectionName(), !variable.isEmpty else { return false }
                    variable.append(UInt8(ascii: "."))
                    base = variable.count
                    continue
                }
                guard GitCType.isAlpha(c) else { return false }
                event(.entry)
                variable.removeSubrange(base...)
                variable.append(GitCType.lower(c))
                guard readEntry() else { return false }
            }
        }

        /// git's `get_base_var` and `get_extended_base_var`.
        private mutating func readSectionName() -> Bool {
            caseInsensitiveSection = true
            while true {
                var c = reader.next()
                if reader.atEnd { return false }
                if c == UInt8(ascii: "]") { return true }
                if GitCType.isSpace(c) {
                    caseInsensitiveSection = false
                    repeat {
                        if c == 0x0a { return false }
                        c = reader.next()
                    } while GitCType.isSpace(c)
                    guard c == UInt8(ascii: "\"") else { return false }
                    variable.append(UInt8(ascii: "."))
                    while true {
                        var d = reader.next()
                        if d == 0x0a { return false }
                        if d == UInt8(ascii: "\"") { break }
                        if d == UInt8(ascii: "\\") {
                            d = reader.next()
                            if d == 0x0a { return false }
                        }
                        variable.append(d)
                    }
                    return reader.next() == UInt8(ascii: "]")
                }
                guard GitCType.isKeyChar(c) || c == UInt8(ascii: ".") else { return false }
                variable.append(GitCType.lower(c))
            }
        }

        /// git's `get_value` and `parse_value` (the value itself is not needed: only whether it reads).
        private mutating func readEntry() -> Bool {
            var c: UInt8
            while true {
                c = reader.next()
                if reader.atEnd || !GitCType.isKeyChar(c) { break }
                variable.append(GitCType.lower(c))
            }
            while c == 0x20 || c == 0x09 { c = reader.next() }
            if c != 0x0a {
                guard c == UInt8(ascii: "=") else { return false }
                var quote = false
                var inComment = false
                while true {
                    let d = reader.next()
                    if d == 0x0a {
                        if quote { return false }
                        break
                    }
                    if inComment { continue }
                    if GitCType.isSpace(d) && !quote { continue }
                    if !quote && (d == UInt8(ascii: ";") || d == UInt8(ascii: "#")) {
                        inComment = true
                        continue
                    }
                    if d == UInt8(ascii: "\\") {
                        switch reader.next() {
                        case 0x0a, UInt8(ascii: "t"), UInt8(ascii: "b"), UInt8(ascii: "n"), UInt8(ascii: "\\"),
                            UInt8(ascii: "\""):
                            continue
                        default: return false
                        }
                    }
                    if d == UInt8(ascii: "\"") { quote.toggle() }
                }
            }
            reader.line -= 1
            entry(variable)
            reader.line += 1
            return true
        }
    }

    /// git's character source for the parser, with `ftell`'s position: CRLF read as one LF, the
    /// end read as LF (each time), a line count as git keeps it.
    private struct EventReader {
        let bytes: [UInt8]
        var position = 0
        var line = 1
        var atEnd = false

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        mutating func next() -> UInt8 {
            guard position < bytes.count else {
                atEnd = true
                line += 1
                return 0x0a
            }
            var c = bytes[position]
            position += 1
            if c == 0x0d, position < bytes.count {
                if bytes[position] == 0x0a {
                    position += 1
                    c = 0x0a
                }
            }
            if c == 0x0a { line += 1 }
            return c
        }
    }
}
