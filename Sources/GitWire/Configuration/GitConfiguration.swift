/// git's configuration as git itself reads it: every entry of the system, global, repository,
/// worktree and command-line layers in git's order (includes followed where they appear), each
/// with its scope and origin, and typed getters that interpret values as git does.
///
/// ```swift
/// let config = try GitConfiguration.load(gitDirectory: "/home/me/project/.git", commandLine: ["http.sslVerify=false"])
/// let verify = try config.bool("http.sslVerify") ?? true
/// let url = try config.rewrittenURL("gh:me/project")           // url.<base>.insteadOf
/// let headers = try config.urlMatch("http.extraHeader", for: "https://example.org/repo.git")
/// ```
///
/// ``none`` is the empty configuration: what a hermetic program uses (a ``Remote`` made from a
/// URL reads none). See <doc:Configuration> for what is read and why.
public struct GitConfiguration: Hashable, Sendable {
    /// Every entry in the order git reads them (a later entry overrides an earlier one).
    public var entries: [ConfigEntry]
    /// The home directory `~/` expands to in ``path(_:)`` (`HOME` when the configuration was
    /// loaded).
    public var homeDirectory: String?
    /// What git would print as `warning:` while reading (none so far; kept for callers that show
    /// them).
    public var warnings: [String] = []
    /// The git directory the configuration was loaded for (nil outside a repository, or for one
    /// made from entries). The programs gitwire runs for a remote that use git's configuration
    /// themselves (`git credential`) are pointed at it.
    public var gitDirectory: String?

    /// A configuration of `entries`; `homeDirectory` is what `~/` expands to in paths.
    public init(entries: [ConfigEntry], homeDirectory: String? = nil) {
        self.entries = entries
        self.homeDirectory = homeDirectory
    }

    /// No configuration at all: every getter answers nil, no URL is rewritten. Nothing on the
    /// machine changes what a program that uses it does.
    public static let none = GitConfiguration(entries: [])

    /// The entries named `name` (any case for the section and key, exact for a subsection), in
    /// order. Throws ``ConfigError/invalidKey(reason:)`` for a name git refuses.
    public func entries(named name: String) throws(ConfigError) -> [ConfigEntry] {
        let canonical = Array(try ConfigParameters.canonicalName(name).utf8)
        return entries.filter { $0.name.utf8.elementsEqual(canonical) }
    }

    /// Every value of `name`, in order (`git config --get-all`); nil for an entry with no `=`.
    public func all(_ name: String) throws(ConfigError) -> [String?] {
        try entries(named: name).map(\.value)
    }

    /// The last entry named `name`, the one that applies.
    public func last(_ name: String) throws(ConfigError) -> ConfigEntry? {
        try entries(named: name).last
    }

    /// The value of `name` (its last entry), or nil if it is not set. Throws
    /// ``ConfigError/badVariable(name:origin:line:reason:)`` when that entry has no `=` (git:
    /// `missing value for '<name>'`).
    public func string(_ name: String) throws(ConfigError) -> String? {
        guard let entry = try last(name) else { return nil }
        guard let value = entry.value else { throw Self.missingValue(entry) }
        return value
    }

    /// The value of `name` as a boolean (`git config --type=bool`): see ``ConfigValue/bool(_:)``.
    /// Throws ``ConfigError/badBoolean(name:value:)`` for anything else.
    public func bool(_ name: String) throws(ConfigError) -> Bool? {
        guard let entry = try last(name) else { return nil }
        guard let value = ConfigValue.bool(entry.value) else { throw .badBoolean(name: entry.name, value: entry.value) }
        return value
    }

    /// The value of `name` as an integer (`git config --type=int`): decimal, octal or
    /// hexadecimal as C reads them, with an optional `k`, `m` or `g` unit, within
    /// `-maximum...maximum` (git's 64-bit bound by default; git reads some settings as 32-bit
    /// `int`s: pass `Int(Int32.max)` for those). Throws
    /// ``ConfigError/badNumber(name:value:origin:outOfRange:)`` with git's message.
    public func int(_ name: String, maximum: Int = Int.max) throws(ConfigError) -> Int? {
        guard let entry = try last(name) else { return nil }
        switch ConfigValue.integer(entry.value ?? "", maximum: Int64(maximum)) {
        case .success(let value): return Int(value)
        case .failure(let problem):
            throw .badNumber(
                name: entry.name, value: entry.value, origin: entry.origin, outOfRange: problem == .outOfRange)
        }
    }

    /// The value of `name` as a path (`git config --type=path`): `~/` expanded from
    /// ``homeDirectory``, `~user/` from the user database, `%(prefix)/` from `/usr`. Throws
    /// ``ConfigError/pathExpansion(_:)`` when a home directory is unknown, and
    /// ``ConfigError/badVariable(name:origin:line:reason:)`` for an entry with no `=`.
    public func path(_ name: String) throws(ConfigError) -> String? {
        guard let entry = try last(name) else { return nil }
        guard let value = entry.value else { throw Self.missingValue(entry) }
        return try expandedPath(value)
    }

    /// `path` expanded as ``path(_:)`` expands values.
    public func expandedPath(_ path: String) throws(ConfigError) -> String {
        guard
            let expanded = ConfigValue.expandedPath(
                path, home: homeDirectory, homeOfUser: { ConfigFiles.homeDirectory(ofUser: $0) })
        else { throw .pathExpansion(path) }
        return expanded
    }

    /// The `url.<base>.insteadOf` and `url.<base>.pushInsteadOf` rewrites configured.
    public func urlRewrites() throws(ConfigError) -> URLRewrites { try URLRewrites(entries) }

    /// `url` rewritten by `url.<base>.insteadOf` (longest prefix wins), as git rewrites a URL
    /// it fetches from.
    public func rewrittenURL(_ url: String) throws(ConfigError) -> String { try urlRewrites().rewritten(url) }

    /// The fetch and push URLs of the remote `name` (`remote.<name>.url` and
    /// `remote.<name>.pushurl`, rewritten as git rewrites them: see
    /// ``URLRewrites/remoteURLs(urls:pushURLs:)``), or nil when no URL is configured for it.
    /// Throws ``ConfigError/badVariable(name:origin:line:reason:)`` for a `url` or `pushurl`
    /// with no `=`.
    public func remoteURLs(named name: String) throws(ConfigError) -> (urls: [String], pushURLs: [String])? {
        // git ignores remotes whose names start with `/` (they could not be told from paths).
        guard !name.hasPrefix("/") else { return nil }
        var urls: [String] = []
        var pushURLs: [String] = []
        for entry in entries where entry.section == "remote" {
            guard let subsection = entry.subsection, subsection.utf8.elementsEqual(name.utf8) else { continue }
            let key = entry.key
            guard key == "url" || key == "pushurl" else { continue }
            guard let value = entry.value else { throw Self.missingValue(entry) }
            if key == "url" { urls.append(value) } else { pushURLs.append(value) }
        }
        guard !urls.isEmpty || !pushURLs.isEmpty else { return nil }
        return try urlRewrites().remoteURLs(urls: urls, pushURLs: pushURLs)
    }

    /// The value `http.<url>.<key>`-style entries give `name` (`http.sslVerify`,
    /// `http.extraHeader`: section and key) for `url`, as `git config --get-urlmatch` chooses it
    /// (see ``URLMatch``), or nil when no entry matches. The outer optional is nil when nothing
    /// matched, the inner one for an entry with no `=`.
    public func urlMatch(_ name: String, for url: String) throws(ConfigError) -> String?? {
        let bytes = Array(name.utf8)
        guard let dot = bytes.firstIndex(of: UInt8(ascii: ".")) else {
            throw .invalidKey(reason: "key does not contain a section: \(name)")
        }
        let section = String(decoding: bytes[..<dot], as: UTF8.self)
        let key = String(decoding: bytes[(dot + 1)...], as: UTF8.self)
        guard let match = try URLMatch.values(section: section, key: key, url: url, entries: entries).first else {
            return nil
        }
        return .some(match.value)
    }

    /// Every key of `section` that entries set for `url`, with the value that applies to it, in
    /// git's order (`git config --get-urlmatch <section> <url>`).
    package func urlMatches(section: String, for url: String) throws(ConfigError) -> [(key: String, value: String?)] {
        try URLMatch.values(section: section, url: url, entries: entries)
    }

    private static func missingValue(_ entry: ConfigEntry) -> ConfigError {
        .badVariable(
            name: entry.name, origin: entry.origin, line: entry.line, reason: "missing value for '\(entry.name)'")
    }
}
