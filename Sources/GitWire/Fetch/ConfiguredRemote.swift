/// A remote as `git fetch` sees it (remote.c `remote_get`): a remote configured by name
/// (`remote.<name>.*`) or a URL given directly, with the settings a fetch from it follows.
///
/// ```swift
/// let location = try RepositoryLocation.discover()
/// let config = try GitConfiguration.load(gitDirectory: location.gitDirectory)
/// let origin = try ConfiguredRemote.named("origin", configuration: config)!
/// let remote = try Remote(origin.name, configuration: config)
/// try await remote.fetch(
///     into: location.gitDirectory, options: RepositoryFetchOptions(remote: origin, configuration: config))
/// ```
public struct ConfiguredRemote: Hashable, Sendable {
    /// The remote's name; for a URL given directly, the URL itself (git names it so).
    public var name: String
    /// Whether any `remote.<name>.*` entry exists (git's `remote_is_configured`).
    public var isConfigured: Bool
    /// The URLs to fetch from, rewritten by `url.<base>.insteadOf`; the first is used.
    public var urls: [String]
    /// `remote.<name>.fetch`: the refspecs a fetch without refspecs follows.
    public var fetchRefspecs: [Refspec]
    /// `remote.<name>.tagOpt`: `--tags` (``FetchTags/all``) or `--no-tags` (``FetchTags/none``).
    public var tagOption: FetchTags?
    /// `remote.<name>.prune`.
    public var prune: Bool?
    /// `remote.<name>.pruneTags`.
    public var pruneTags: Bool?
    /// `remote.<name>.mirror`.
    public var mirror: Bool
    /// `remote.<name>.promisor`.
    public var promisor: Bool
    /// `remote.<name>.partialCloneFilter`.
    public var partialCloneFilter: String?

    /// A remote with these settings.
    public init(
        name: String, isConfigured: Bool = false, urls: [String], fetchRefspecs: [Refspec] = [],
        tagOption: FetchTags? = nil, prune: Bool? = nil, pruneTags: Bool? = nil, mirror: Bool = false,
        promisor: Bool = false, partialCloneFilter: String? = nil
    ) {
        self.name = name
        self.isConfigured = isConfigured
        self.urls = urls
        self.fetchRefspecs = fetchRefspecs
        self.tagOption = tagOption
        self.prune = prune
        self.pruneTags = pruneTags
        self.mirror = mirror
        self.promisor = promisor
        self.partialCloneFilter = partialCloneFilter
    }

    /// The URL fetched from: the first of ``urls``.
    public var url: String { urls.first ?? name }

    /// The remote `nameOrURL` names, as git's `remote_get` finds it: a configured remote of that
    /// name, else the text itself taken as a URL (rewritten by `url.<base>.insteadOf`). With no
    /// name, the current branch's `branch.<branch>.remote`, else the only remote configured,
    /// else `origin`; nil when that remote has no URL (git: `no remote repository specified`).
    ///
    /// - Parameters:
    ///   - nameOrURL: a remote's name or a URL; nil for the default remote.
    ///   - configuration: the repository's configuration, as git reads it.
    ///   - currentBranch: the branch `HEAD` points to (`refs/heads/<branch>`), for the default.
    /// - Throws: ``RefspecError`` for a configured refspec git refuses (`invalid refspec`),
    ///   ``ConfigError`` for values git cannot read.
    public static func named(
        _ nameOrURL: String?, configuration: GitConfiguration, currentBranch: String? = nil
    ) throws -> ConfiguredRemote? {
        let name = try nameOrURL ?? defaultName(configuration: configuration, currentBranch: currentBranch)
        var remote = ConfiguredRemote(name: name, urls: [])
        if !name.hasPrefix("/") {
            for entry in configuration.entries where entry.section == "remote" {
                guard let subsection = entry.subsection, subsection.utf8.elementsEqual(name.utf8) else { continue }
                remote.isConfigured = true
                let value = entry.value
                switch entry.key {
                case "fetch":
                    guard let value else { throw missingValue(entry) }
                    remote.fetchRefspecs.append(try Refspec(value))
                case "tagopt":
                    if value == "--no-tags" { remote.tagOption = FetchTags.none }
                    if value == "--tags" { remote.tagOption = .all }
                case "prune": remote.prune = try bool(entry)
                case "prunetags": remote.pruneTags = try bool(entry)
                case "mirror": remote.mirror = try bool(entry)
                case "promisor": remote.promisor = try bool(entry)
                case "partialclonefilter": remote.partialCloneFilter = value
                default: break
                }
            }
            if let urls = try configuration.remoteURLs(named: name) { remote.urls = urls.urls }
        }
        if remote.urls.isEmpty {
            // git takes a name it does not know as a URL, and only when it was given.
            guard nameOrURL != nil else { return nil }
            remote.urls = [try configuration.rewrittenURL(name)]
        }
        return remote
    }

    /// The remote a command uses when none is named (remote.c `remotes_remote_for_branch`): the
    /// current branch's `branch.<branch>.remote`, else the only remote configured, else `origin`.
    public static func defaultName(configuration: GitConfiguration, currentBranch: String?) throws -> String {
        if let branch = currentBranch, let remote = try configuration.string("branch.\(branch).remote") {
            return remote
        }
        let names = configuredNames(configuration)
        return names.count == 1 ? names[0] : "origin"
    }

    /// The names of the configured remotes, in the order git meets them.
    package static func configuredNames(_ configuration: GitConfiguration) -> [String] {
        var names: [String] = []
        for entry in configuration.entries where entry.section == "remote" {
            guard let subsection = entry.subsection else { continue }
            let name = String(subsection)
            guard !name.hasPrefix("/"), !names.contains(name) else { continue }
            names.append(name)
        }
        return names
    }

    private static func bool(_ entry: ConfigEntry) throws -> Bool {
        guard let value = ConfigValue.bool(entry.value) else {
            throw ConfigError.badBoolean(name: entry.name, value: entry.value)
        }
        return value
    }

    private static func missingValue(_ entry: ConfigEntry) -> ConfigError {
        .badVariable(
            name: entry.name, origin: entry.origin, line: entry.line, reason: "missing value for '\(entry.name)'")
    }
}
