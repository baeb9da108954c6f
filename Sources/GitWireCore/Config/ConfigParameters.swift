/// Variable names as git checks them, and configuration given on the command line or in the
/// environment (`-c`, `GIT_CONFIG_PARAMETERS`, `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_<n>`/
/// `GIT_CONFIG_VALUE_<n>`), read by git's rules. Pure: the environment is passed in.
public enum ConfigParameters {
    /// The canonical form of a variable name (`git_config_parse_key`): section and key lowercased,
    /// subsection as given. Throws git's message for a name with no section or key, a key that
    /// does not start with a letter or has bytes other than letters, digits and `-`, or a
    /// subsection with a newline.
    public static func canonicalName(_ name: String) throws(ConfigError) -> String {
        let bytes = Array(name.utf8)
        guard let lastDot = bytes.lastIndex(of: UInt8(ascii: ".")), lastDot != 0 else {
            throw .invalidKey(reason: "key does not contain a section: \(name)")
        }
        guard lastDot + 1 < bytes.count else {
            throw .invalidKey(reason: "key does not contain variable name: \(name)")
        }
        var canonical: [UInt8] = []
        canonical.reserveCapacity(bytes.count)
        var dot = false
        for (i, var c) in bytes.enumerated() {
            if c == UInt8(ascii: ".") { dot = true }
            if !dot || i > lastDot {
                guard GitCType.isKeyChar(c), i != lastDot + 1 || GitCType.isAlpha(c) else {
                    throw .invalidKey(reason: "invalid key: \(name)")
                }
                c = GitCType.lower(c)
            } else if c == 0x0a {
                throw .invalidKey(reason: "invalid key (newline): \(name)")
            }
            canonical.append(c)
        }
        return String(decoding: canonical, as: UTF8.self)
    }

    /// `GIT_CONFIG_PARAMETERS` after git has added `-c <argument>` to it (`git -c` does exactly
    /// this): `'key'='value'` (or `'key'=` for an argument without `=`, boolean true), separated
    /// by spaces. The argument is split at its first `=`, so values keep theirs.
    public static func appending(commandLineArgument argument: String, to parameters: String?) -> String {
        let bytes = Array(argument.utf8)
        if let equals = bytes.firstIndex(of: UInt8(ascii: "=")) {
            return appending(
                key: String(decoding: bytes[..<equals], as: UTF8.self),
                value: String(decoding: bytes[(equals + 1)...], as: UTF8.self), to: parameters)
        }
        return appending(key: argument, value: nil, to: parameters)
    }

    /// `GIT_CONFIG_PARAMETERS` with `'key'='value'` (or `'key'=` for no value) added.
    public static func appending(key: String, value: String?, to parameters: String?) -> String {
        var text = parameters ?? ""
        if !text.isEmpty { text += " " }
        text += shellQuoted(key) + "="
        if let value { text += shellQuoted(value) }
        return text
    }

    /// The entries of `GIT_CONFIG_COUNT`, `GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>`, then
    /// `GIT_CONFIG_PARAMETERS`, in git's order, read from `environment`. Throws
    /// ``ConfigError/commandLine(reason:)`` with git's message.
    public static func entries(environment: (String) -> String?) throws(ConfigError) -> [ConfigEntry] {
        let (entries, error) = read(environment: environment)
        if let error { throw error }
        return entries
    }

    /// The entries read before any error, and the error: git hands each entry on as it reads it,
    /// so what the entries before a bad one do (an include) happens first.
    package static func read(environment: (String) -> String?) -> (entries: [ConfigEntry], error: ConfigError?) {
        var entries: [ConfigEntry] = []
        do throws(ConfigError) {
            if let countText = environment("GIT_CONFIG_COUNT") {
                guard let count = strtoul(countText) else {
                    throw ConfigError.commandLine(reason: "bogus count in GIT_CONFIG_COUNT")
                }
                guard count <= UInt64(Int32.max) else {
                    throw ConfigError.commandLine(reason: "too many entries in GIT_CONFIG_COUNT")
                }
                for index in 0..<Int(count) {
                    guard let key = environment("GIT_CONFIG_KEY_\(index)") else {
                        throw ConfigError.commandLine(reason: "missing config key GIT_CONFIG_KEY_\(index)")
                    }
                    guard let value = environment("GIT_CONFIG_VALUE_\(index)") else {
                        throw ConfigError.commandLine(reason: "missing config value GIT_CONFIG_VALUE_\(index)")
                    }
                    entries.append(try pair(key, value))
                }
            }
            if let parameters = environment("GIT_CONFIG_PARAMETERS") {
                try read(parameters: parameters, into: &entries)
            }
        } catch {
            return (entries, error)
        }
        return (entries, nil)
    }

    /// The entries of a `GIT_CONFIG_PARAMETERS` value: `'key'='value'` and `'key'=` items (what
    /// git writes) and old-style `'key=value'` ones, separated by whitespace.
    public static func entries(parameters: String) throws(ConfigError) -> [ConfigEntry] {
        var entries: [ConfigEntry] = []
        try read(parameters: parameters, into: &entries)
        return entries
    }

    private static func read(parameters: String, into entries: inout [ConfigEntry]) throws(ConfigError) {
        let bogus = ConfigError.commandLine(reason: "bogus format in GIT_CONFIG_PARAMETERS")
        let text = Array(parameters.utf8)
        let end = text.firstIndex(of: 0) ?? text.count
        var cursor: Int? = 0
        while let position = cursor, position < end {
            guard let (key, next) = dequoteStep(text, at: position, end: end) else { throw bogus }
            cursor = next
            if next == nil || GitCType.isSpace(text[next!]) {
                entries.append(try oldStyle(key))
            } else if text[next!] == UInt8(ascii: "=") {
                let valueStart = next! + 1
                let value: String?
                if valueStart < end && text[valueStart] == UInt8(ascii: "'") {
                    guard let (quoted, after) = dequoteStep(text, at: valueStart, end: end) else { throw bogus }
                    if let after, !GitCType.isSpace(text[after]) { throw bogus }
                    value = quoted
                    cursor = after
                } else if valueStart == end || GitCType.isSpace(text[valueStart]) {
                    value = nil
                    cursor = valueStart == end ? nil : valueStart
                } else {
                    throw bogus
                }
                entries.append(try pair(key, value))
            } else {
                throw bogus
            }
            if var position = cursor {
                while position < end && GitCType.isSpace(text[position]) { position += 1 }
                cursor = position
            }
        }
    }

    /// `'text'` with `'` and `!` quoted for a shell, as git's `sq_quote_buf` writes it.
    static func shellQuoted(_ text: String) -> String {
        var quoted = "'"
        for scalar in text.unicodeScalars {
            if scalar == "'" || scalar == "!" {
                quoted += "'\\\(scalar)'"
            } else {
                quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "'"
    }

    /// One single-quoted word from `position` (git's `sq_dequote_step`): the word and where the
    /// text goes on after it (nil at the end), or nil when the text is not a quoted word.
    private static func dequoteStep(_ text: [UInt8], at position: Int, end: Int) -> (String, Int?)? {
        guard position < end, text[position] == UInt8(ascii: "'") else { return nil }
        var word: [UInt8] = []
        var i = position
        while true {
            i += 1
            guard i < end else { return nil }
            let c = text[i]
            if c != UInt8(ascii: "'") {
                word.append(c)
                continue
            }
            // Out of the quotes: the end, a `\'` or `\!` that resumes them, or the word's end.
            let following = i + 1
            if following == end { return (String(decoding: word, as: UTF8.self), nil) }
            if text[following] == UInt8(ascii: "\\"), following + 2 < end,
                text[following + 1] == UInt8(ascii: "'") || text[following + 1] == UInt8(ascii: "!"),
                text[following + 2] == UInt8(ascii: "'")
            {
                word.append(text[following + 1])
                i = following + 2
                continue
            }
            return (String(decoding: word, as: UTF8.self), following)
        }
    }

    /// One `key=value` argument as `git clone -c` (and `git_config_parse_parameter`) reads it:
    /// split at the first `=`, the key trimmed and made canonical (``canonicalName(_:)``), an
    /// argument without `=` has no value (git writes it as `true`). Throws
    /// ``ConfigError/commandLine(reason:)`` with git's message (`bogus config parameter: …`,
    /// `key does not contain a section: …`, …).
    public static func entry(argument: String) throws(ConfigError) -> ConfigEntry {
        try oldStyle(argument)
    }

    /// An old-style `key=value` item (`git_config_parse_parameter`): split at the first `=`,
    /// the key trimmed; no `=` means no value.
    private static func oldStyle(_ item: String) throws(ConfigError) -> ConfigEntry {
        let bytes = Array(item.utf8)
        guard !bytes.isEmpty else { throw .commandLine(reason: "bogus config parameter: \(item)") }
        var key: ArraySlice<UInt8>
        var value: String?
        if let equals = bytes.firstIndex(of: UInt8(ascii: "=")) {
            key = bytes[..<equals]
            value = String(decoding: bytes[(equals + 1)...], as: UTF8.self)
        } else {
            key = bytes[...]
        }
        while let last = key.last, GitCType.isSpace(last) { key = key.dropLast() }
        while let first = key.first, GitCType.isSpace(first) { key = key.dropFirst() }
        guard !key.isEmpty else { throw .commandLine(reason: "bogus config parameter: \(item)") }
        return try pair(String(decoding: key, as: UTF8.self), value)
    }

    /// `config_parse_pair`: the name checked and made canonical.
    private static func pair(_ key: String, _ value: String?) throws(ConfigError) -> ConfigEntry {
        guard !key.isEmpty else { throw .commandLine(reason: "empty config key") }
        let name: String
        do {
            name = try canonicalName(key)
        } catch {
            throw .commandLine(reason: error.description)
        }
        return ConfigEntry(name: name, value: value, scope: .command, origin: .commandLine, line: 0)
    }

    /// C's `strtoul(text, &end, 10)` when the whole text is read (nil otherwise); a value past
    /// the range reads as the largest one, and a `-` negates (wrapping), as C does.
    private static func strtoul(_ text: String) -> UInt64? {
        let bytes = Array(text.utf8)
        var i = 0
        while i < bytes.count && (bytes[i] == 0x20 || (bytes[i] >= 0x09 && bytes[i] <= 0x0d)) { i += 1 }
        var negative = false
        if i < bytes.count && (bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-")) {
            negative = bytes[i] == UInt8(ascii: "-")
            i += 1
        }
        let digitsStart = i
        var value: UInt64 = 0
        var overflow = false
        while i < bytes.count, GitCType.isDigit(bytes[i]) {
            let (product, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = product.addingReportingOverflow(UInt64(bytes[i] - UInt8(ascii: "0")))
            if o1 || o2 { overflow = true } else { value = sum }
            i += 1
        }
        // No digits: nothing is read (end is the start of the text).
        if i == digitsStart { return bytes.isEmpty ? 0 : nil }
        guard i == bytes.count else { return nil }
        if overflow { return .max }
        return negative ? 0 &- value : value
    }
}
