import GitWire

/// ``ConfigEditor`` on any text: the input is a key, a value and a configuration text (split at
/// the first two line feeds). The editor reads a text exactly when ``ConfigParser`` does (both are
/// git's parser). A set that changed a text free of git's quirks (backslash continuations, CRs,
/// NULs, a leading byte order mark, which git leaves after a new entry in a text holding nothing
/// else) leaves a text that parses, whose last entry of that name (in any case) holds the value,
/// with every other entry as it was; an unset then removes exactly one entry of that name.
enum FuzzConfigEdit {
    static func run(_ data: [UInt8]) {
        let parts = data.split(separator: 0x0a, maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return }
        let key = String(decoding: parts[0], as: UTF8.self)
        let value = String(decoding: parts[1], as: UTF8.self)
        let text = Array(parts[2])
        let parsed = ConfigParser.parse(text)
        let plain =
            !text.contains(UInt8(ascii: "\\")) && !text.contains(0x0d) && !text.contains(0) && text.first != 0xef
            && parsed.errorLine == nil
        var setting = ConfigEditor(text)
        do {
            let outcome = try setting.set(key, to: value)
            fuzzInvariant(parsed.errorLine == nil, "the editor read a text the parser refuses")
            guard outcome == .changed, plain, let canonical = try? ConfigParameters.canonicalName(key) else { return }
            let again = ConfigParser.parse(setting.text)
            fuzzInvariant(again.errorLine == nil, "a set left a text git cannot read: \(setting.text)")
            // git's deprecated `[section.Sub]` header matches the key case-insensitively, and its
            // entries are then named in lower case: those count as the key's.
            let ours = { (entry: ConfigEntry) in entry.name.lowercased() == canonical.lowercased() }
            let others = parsed.entries.filter { !ours($0) }.map { [$0.name, $0.value ?? "\u{0}"] }
            let othersAfter = again.entries.filter { !ours($0) }.map { [$0.name, $0.value ?? "\u{0}"] }
            fuzzInvariant(others == othersAfter, "a set changed other entries:\n\(others)\n\(othersAfter)")
            let values = again.entries.filter(ours).map(\.value)
            fuzzInvariant(
                values.last == value || value.utf8.contains(0), "the set value is not the last: \(values) \(value)")
        } catch {
            if case .badLine = error {
                fuzzInvariant(parsed.errorLine != nil, "the editor refused a text the parser reads")
            }
        }
        var unsetting = ConfigEditor(text)
        if let outcome = try? unsetting.set(key, to: nil), outcome == .changed, plain,
            let canonical = try? ConfigParameters.canonicalName(key)
        {
            let again = ConfigParser.parse(unsetting.text)
            fuzzInvariant(again.errorLine == nil, "an unset left a text git cannot read")
            fuzzInvariant(
                again.entries.filter { $0.name == canonical }.count
                    == parsed.entries.filter { $0.name == canonical }.count - 1,
                "an unset removed other than one entry")
        }
        var adding = ConfigEditor(text)
        try? adding.add(key, value: value)
    }
}
