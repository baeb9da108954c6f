import GitWire

/// Configuration text: git's config syntax, the writer, `GIT_CONFIG_PARAMETERS`, values, URLs
/// for `http.<url>.*` matching, `insteadOf` rewriting and wildmatch with git's flags.
enum FuzzConfig {
    static func run(_ data: [UInt8]) {
        // Whatever parses writes back to text that parses to the same entries.
        // (A NUL byte in a subsection cuts the whole name short, as git's C strings do, and can
        // leave a name no header and key can spell, such as one ending in a dot: only then may
        // the writer refuse.)
        let parsed = ConfigParser.parse(data)
        if let written = try? ConfigWriter.text(parsed.entries) {
            let again = ConfigParser.parse(written)
            fuzzInvariant(
                again.errorLine == nil, "written text does not parse (line \(again.errorLine ?? 0)): \(written)")
            let before = parsed.entries.map { [$0.name, $0.value ?? "\u{0}none"] }
            let after = again.entries.map { [$0.name, $0.value ?? "\u{0}none"] }
            fuzzInvariant(before == after, "entries change through the writer:\n\(before)\n\(after)")
        } else {
            fuzzInvariant(data.contains(0), "parsed entries cannot be written: \(parsed.entries)")
        }

        let text = String(decoding: data, as: UTF8.self)
        _ = try? ConfigParameters.entries(parameters: text)
        _ = try? ConfigParameters.canonicalName(text)
        let appended = ConfigParameters.appending(commandLineArgument: text, to: nil)
        if let entries = try? ConfigParameters.entries(parameters: appended) {
            fuzzInvariant(entries.count == 1, "one -c argument gave \(entries.count) entries: \(appended)")
        }
        _ = ConfigValue.bool(text)
        _ = ConfigValue.integer(text)
        _ = ConfigValue.unsignedInteger(text)
        _ = ConfigValue.expandedPath(text, home: "/home/h", homeOfUser: { "/home/\($0)" })
        if let url = try? URLMatch.normalize(text, allowGlobs: true) {
            // Everything outside printable ASCII ends up %-escaped. (git's normal form is not a
            // fixed point: `https://h:p://x` normalizes to `https://h:p//x`, whose port is bad.)
            fuzzInvariant(url.url.allSatisfy { $0 > 0x20 && $0 < 0x7f }, "unescaped bytes in \(url.url)")
        }
        _ = try? URLMatch.values(section: "http", url: "https://user@example.org:8443/a/b", entries: parsed.entries)
        if let rewrites = try? URLRewrites(parsed.entries) {
            _ = rewrites.remoteURLs(urls: [text, "gh:x"], pushURLs: [])
        }
        let halves = data.split(separator: 0x0a, maxSplits: 1, omittingEmptySubsequences: false)
        if halves.count == 2 {
            _ = Wildmatch.matches(halves[0], halves[1], options: [.pathname])
            _ = Wildmatch.matches(halves[0], halves[1], options: [.pathname, .caseFold])
            _ = Wildmatch.matches(halves[0], halves[1], options: [])
        }
    }
}
