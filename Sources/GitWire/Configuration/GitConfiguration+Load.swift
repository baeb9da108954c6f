extension GitConfiguration {
    /// Reads git's configuration as git 2.39 reads it, in its order:
    ///
    /// 1. system: `GIT_CONFIG_SYSTEM`, else `/etc/gitconfig` (skipped when `GIT_CONFIG_NOSYSTEM`
    ///    is true);
    /// 2. global: `GIT_CONFIG_GLOBAL`, else `$XDG_CONFIG_HOME/git/config` (or
    ///    `~/.config/git/config`) then `~/.gitconfig`;
    /// 3. local: the repository's `config` (in its common directory, for a linked worktree);
    /// 4. worktree: `config.worktree` in `gitDirectory`, when the repository's `config` sets
    ///    `extensions.worktreeConfig`;
    /// 5. command: `GIT_CONFIG_COUNT` with `GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>`, then
    ///    `GIT_CONFIG_PARAMETERS`, then `commandLine` (the arguments of `-c`, as `git -c` takes
    ///    them: `name=value`, `name=` for the empty string, `name` alone for true).
    ///
    /// `include.path` and `includeIf.<condition>.path` (`gitdir:`, `gitdir/i:`, `onbranch:`,
    /// `hasconfig:remote.*.url:`) are followed where they appear, as git follows them: relative
    /// paths from the including file's directory, at most 10 deep. Missing files are skipped.
    ///
    /// - Parameters:
    ///   - gitDirectory: the repository's git directory (`.git`, or the repository itself if it
    ///     is bare), named as the user named it: `gitdir:` conditions match it resolved, then as
    ///     given (made absolute), as git does. Nil outside a repository (no local or worktree
    ///     layer, no `gitdir:` or `onbranch:` match).
    ///   - environment: the environment to read (`HOME`, `XDG_CONFIG_HOME`, `GIT_CONFIG_*`,
    ///     `GIT_COMMON_DIR`, `PWD`); the process's own when nil.
    ///   - commandLine: `-c` arguments, in order.
    /// - Throws: ``ConfigError`` with git's message for what git refuses (a syntax error, an
    ///   include loop, a bad `-c`, an unreadable file).
    public static func load(
        gitDirectory: String? = nil, environment: [String: String]? = nil, commandLine: [String] = []
    ) throws(ConfigError) -> GitConfiguration {
        var environment = environment ?? Environment.all()
        for argument in commandLine {
            environment["GIT_CONFIG_PARAMETERS"] = ConfigParameters.appending(
                commandLineArgument: argument, to: environment["GIT_CONFIG_PARAMETERS"])
        }
        if gitDirectory != nil {
            // Every git command reads the system and global files once before it looks at the
            // repository (trace2's "very early" configuration), so their errors come first.
            let early = try LoadContext(gitDirectory: nil, environment: environment)
            var loader = ConfigLoader(context: early, collectingRemoteURLs: false, readsCommandLine: false)
            try loader.readAll()
        }
        let context = try LoadContext(gitDirectory: gitDirectory, environment: environment)
        var loader = ConfigLoader(context: context, collectingRemoteURLs: false)
        try loader.readAll()
        var configuration = GitConfiguration(entries: loader.entries, homeDirectory: environment["HOME"])
        configuration.warnings = loader.warnings
        configuration.gitDirectory = gitDirectory
        return configuration
    }
}

/// What one load reads from: the environment and the repository's directories.
struct LoadContext {
    let environment: [String: String]
    /// The git directory as given.
    let gitDirectory: String?
    /// Where the repository's shared files are (`commondir`), for its `config`.
    let commonDirectory: String?
    let worktreeConfig: Bool

    init(gitDirectory: String?, environment: [String: String]) throws(ConfigError) {
        self.environment = environment
        self.gitDirectory = gitDirectory
        guard let gitDirectory else {
            commonDirectory = nil
            worktreeConfig = false
            return
        }
        let common = Self.commonDirectory(of: gitDirectory, environment: environment)
        commonDirectory = common
        worktreeConfig = try Self.readsWorktreeConfig("\(common)/config")
    }

    /// git's `get_common_dir`: `GIT_COMMON_DIR`, else the `commondir` file (relative to the git
    /// directory, resolved), else the git directory itself.
    static func commonDirectory(of gitDirectory: String, environment: [String: String]) -> String {
        if let common = environment["GIT_COMMON_DIR"] { return common }
        guard let bytes = try? ConfigFiles.read("\(gitDirectory)/commondir") else { return gitDirectory }
        var text = bytes[...]
        while let last = text.last, last == 0x0a || last == 0x0d { text = text.dropLast() }
        var path = String(decoding: text, as: UTF8.self)
        if !path.hasPrefix("/") { path = "\(gitDirectory)/\(path)" }
        return ConfigFiles.realPath(path) ?? path
    }

    /// Whether the repository's own `config` sets `extensions.worktreeConfig` (read as git's
    /// setup reads it: that file alone, no includes).
    static func readsWorktreeConfig(_ path: String) throws(ConfigError) -> Bool {
        guard let bytes = try? ConfigFiles.read(path) else { return false }
        let result = ConfigParser.parse(bytes, origin: .file(path))
        var enabled = false
        for entry in result.entries where entry.name == "extensions.worktreeconfig" {
            guard let value = ConfigValue.bool(entry.value) else {
                throw .badBoolean(name: entry.name, value: entry.value)
            }
            enabled = value
        }
        if let line = result.errorLine { throw .badLine(line: line, origin: .file(path), reason: nil) }
        return enabled
    }
}

/// git's `config_with_options` with includes: reads the layers in order, follows includes, and
/// hands each entry on (or, for `hasconfig:remote.*.url:`, collects remote URLs first).
struct ConfigLoader {
    static let maximumIncludeDepth = 10

    let context: LoadContext
    /// Reading every layer only for its `remote.*.url` values, with `hasconfig` includes taken
    /// unconditionally (git's `unconditional_remote_url`).
    let collectingRemoteURLs: Bool
    var entries: [ConfigEntry] = []
    var warnings: [String] = []
    var remoteURLs: [String] = []
    /// Inside a file included by `hasconfig` while collecting: remote URLs are refused there.
    var forbidRemoteURLs = false
    var depth = 0
    /// The remote URLs `hasconfig` conditions match, once collected.
    var collectedRemoteURLs: [String]?

    /// Whether the command layer is read (git's "very early" reading leaves it out).
    let readsCommandLine: Bool

    init(context: LoadContext, collectingRemoteURLs: Bool, readsCommandLine: Bool = true) {
        self.context = context
        self.collectingRemoteURLs = collectingRemoteURLs
        self.readsCommandLine = readsCommandLine
    }

    private var environment: [String: String] { context.environment }

    /// Where the entry being handled came from.
    struct Source {
        /// The file's path (nil for the command line).
        let path: String?
        let scope: ConfigScope
    }

    /// The layers, in git's order.
    mutating func readAll() throws(ConfigError) {
        if let nosystem = environment["GIT_CONFIG_NOSYSTEM"], ConfigValue.bool(nosystem) == nil {
            throw .badBoolean(name: "GIT_CONFIG_NOSYSTEM", value: nosystem)
        }
        let readSystem = !(environment["GIT_CONFIG_NOSYSTEM"].flatMap { ConfigValue.bool($0) } ?? false)
        if readSystem {
            let system = ConfigPaths.normalized(environment["GIT_CONFIG_SYSTEM"] ?? "/etc/gitconfig")
            try readLayerFile(system, scope: .system, deniedIsMissing: true)
        }
        if let global = environment["GIT_CONFIG_GLOBAL"] {
            try readLayerFile(global, scope: .global, deniedIsMissing: true)
        } else {
            let home = environment["HOME"]
            if let xdg = environment["XDG_CONFIG_HOME"], !xdg.isEmpty {
                try readLayerFile("\(xdg)/git/config", scope: .global, deniedIsMissing: true)
            } else if let home {
                try readLayerFile("\(home)/.config/git/config", scope: .global, deniedIsMissing: true)
            }
            if let home { try readLayerFile("\(home)/.gitconfig", scope: .global, deniedIsMissing: true) }
        }
        if let common = context.commonDirectory {
            try readLayerFile("\(common)/config", scope: .local, deniedIsMissing: false)
        }
        if context.worktreeConfig, let gitDirectory = context.gitDirectory {
            try readLayerFile("\(gitDirectory)/config.worktree", scope: .worktree, deniedIsMissing: false)
        }
        guard readsCommandLine else { return }
        let (commandLine, error) = ConfigParameters.read { environment[$0] }
        for entry in commandLine {
            do {
                try handle(entry, from: Source(path: nil, scope: .command))
            } catch .badLine(_, .commandLine, let reason) {
                throw .commandLine(reason: reason ?? "")
            }
        }
        if let error { throw error }
    }

    /// A layer's file: skipped when missing (and, for system and global, unreadable), read
    /// otherwise.
    private mutating func readLayerFile(_ path: String, scope: ConfigScope, deniedIsMissing: Bool) throws(ConfigError) {
        switch ConfigFiles.access(path) {
        case .readable: break
        case .missing: return
        case .denied(let reason):
            if deniedIsMissing { return }
            throw .unreadable(path: path, reason: reason)
        case .failed(let reason): throw .unreadable(path: path, reason: reason)
        }
        try readFile(path, scope: scope) { .unreadable(path: path, reason: $0) }
    }

    /// Reads the file at `path` and handles its entries in order; `openFailure` makes the error
    /// for a file that cannot be opened or read (a directory, say).
    private mutating func readFile(
        _ path: String, scope: ConfigScope, openFailure: (String) -> ConfigError
    ) throws(ConfigError) {
        let bytes: [UInt8]
        do {
            bytes = try ConfigFiles.read(path)
        } catch {
            throw openFailure(error.reason)
        }
        let result = ConfigParser.parse(bytes, scope: scope, origin: .file(path))
        let source = Source(path: path, scope: scope)
        for entry in result.entries { try handle(entry, from: source) }
        if let line = result.errorLine { throw .badLine(line: line, origin: .file(path), reason: nil) }
    }

    /// One entry: handed on, then followed if it is an include.
    private mutating func handle(_ entry: ConfigEntry, from source: Source) throws(ConfigError) {
        try accept(entry)
        let failure = { (reason: String) -> ConfigError in
            .badLine(line: entry.line, origin: source.path.map { .file($0) } ?? .commandLine, reason: reason)
        }
        if entry.name == "include.path" {
            try include(entry.value, from: source, failure: failure)
        }
        if entry.section == "includeif", let condition = entry.subsection {
            if try conditionHolds(String(condition), from: source) && entry.key == "path" {
                let forbidding = forbidRemoteURLs
                if collectingRemoteURLs { forbidRemoteURLs = true }
                defer { forbidRemoteURLs = forbidding }
                try include(entry.value, from: source, failure: failure)
            }
        }
    }

    /// Hands an entry on: kept, or (collecting) its remote URL noted.
    private mutating func accept(_ entry: ConfigEntry) throws(ConfigError) {
        guard collectingRemoteURLs else {
            entries.append(entry)
            return
        }
        guard entry.section == "remote", entry.subsection != nil, entry.key == "url" else { return }
        if forbidRemoteURLs { throw .remoteURLInHasconfigInclude }
        if let value = entry.value { remoteURLs.append(value) }
    }

    /// git's `handle_path_include`.
    private mutating func include(
        _ value: String?, from source: Source, failure: (String) -> ConfigError
    ) throws(ConfigError) {
        guard let value else { throw failure("missing value for 'include.path'") }
        guard
            var path = ConfigValue.expandedPath(
                value, home: environment["HOME"], homeOfUser: { ConfigFiles.homeDirectory(ofUser: $0) })
        else { throw failure("could not expand include path '\(value)'") }
        if !path.hasPrefix("/") {
            guard let including = source.path else { throw failure("relative config includes must come from files") }
            if let slash = including.utf8.lastIndex(of: UInt8(ascii: "/")) {
                path = String(including[...slash]) + path
            }
        }
        switch ConfigFiles.access(path) {
        case .readable: break
        case .missing: return
        case .denied(let reason), .failed(let reason): throw .unreadable(path: path, reason: reason)
        }
        depth += 1
        defer { depth -= 1 }
        if depth > Self.maximumIncludeDepth {
            throw .includeDepthExceeded(including: path, from: source.path ?? "the command line")
        }
        try readFile(path, scope: source.scope) { failure("unable to access '\(path)': \($0)") }
    }

    /// git's `include_condition_is_true`: unknown conditions are false.
    private mutating func conditionHolds(_ condition: String, from source: Source) throws(ConfigError) -> Bool {
        let bytes = Array(condition.utf8)
        for (prefix, caseFold) in [("gitdir:", false), ("gitdir/i:", true)] where bytes.starts(with: prefix.utf8) {
            return gitDirectoryMatches(Array(bytes[prefix.utf8.count...]), caseFold: caseFold, from: source)
        }
        if bytes.starts(with: "onbranch:".utf8) {
            return branchMatches(Array(bytes["onbranch:".utf8.count...]))
        }
        let hasconfig = "hasconfig:remote.*.url:"
        if bytes.starts(with: hasconfig.utf8) {
            if collectingRemoteURLs { return true }
            let pattern = Array(bytes[hasconfig.utf8.count...])
            return try remoteURLsForConditions().contains {
                Wildmatch.matches(pattern, Array($0.utf8), options: .pathname)
            }
        }
        return false
    }

    /// The remote URLs of the whole configuration, read once (a second pass over every layer in
    /// which `hasconfig` includes are followed unconditionally and may not set remote URLs).
    private mutating func remoteURLsForConditions() throws(ConfigError) -> [String] {
        if let collectedRemoteURLs { return collectedRemoteURLs }
        var collector = ConfigLoader(context: context, collectingRemoteURLs: true, readsCommandLine: readsCommandLine)
        try collector.readAll()
        collectedRemoteURLs = collector.remoteURLs
        return collector.remoteURLs
    }

    /// git's `include_by_gitdir`.
    private func gitDirectoryMatches(_ condition: [UInt8], caseFold: Bool, from source: Source) -> Bool {
        guard let gitDirectory = context.gitDirectory else { return false }
        var text = Array((ConfigFiles.realPath(gitDirectory) ?? gitDirectory).utf8)
        var pattern = condition
        let conditionText = String(decoding: condition, as: UTF8.self)
        if let expanded = ConfigValue.expandedPath(
            conditionText, home: environment["HOME"].map { ConfigFiles.realPath($0) ?? $0 },
            homeOfUser: { ConfigFiles.homeDirectory(ofUser: $0) })
        {
            pattern = Array(expanded.utf8)
        }
        var prefix = 0
        if pattern.count >= 2 && pattern[0] == UInt8(ascii: ".") && pattern[1] == UInt8(ascii: "/") {
            // Relative to the including file's directory (resolved).
            guard let including = source.path else { return false }
            let real = Array((ConfigFiles.realPath(including) ?? including).utf8)
            guard let slash = real.lastIndex(of: UInt8(ascii: "/")) else { return false }
            pattern = Array(real[..<slash]) + pattern[1...]
            prefix = slash + 1
        } else if pattern.first != UInt8(ascii: "/") {
            pattern = Array("**/".utf8) + pattern
        }
        if pattern.last == UInt8(ascii: "/") { pattern += Array("**".utf8) }
        var triedAbsolute = false
        while true {
            if prefix > 0 {
                guard text.count >= prefix else { return false }
                let same =
                    caseFold
                    ? pattern[..<prefix].map(GitCType.lower) == text[..<prefix].map(GitCType.lower)
                    : pattern[..<prefix] == text[..<prefix]
                guard same else { return false }
            }
            let options: Wildmatch.Options = caseFold ? [.pathname, .caseFold] : .pathname
            if Wildmatch.matches(pattern[prefix...], text[prefix...], options: options) { return true }
            if triedAbsolute { return false }
            triedAbsolute = true
            text = Array(ConfigPaths.absolute(gitDirectory, pwd: environment["PWD"]).utf8)
        }
    }

    /// git's `include_by_branch`: the branch `HEAD` names (through symbolic refs), matched with
    /// `WM_PATHNAME`; a trailing `/` matches everything under it.
    private func branchMatches(_ condition: [UInt8]) -> Bool {
        guard let gitDirectory = context.gitDirectory,
            let target = ConfigPaths.symbolicHead(gitDirectory: gitDirectory, commonDirectory: context.commonDirectory),
            target.hasPrefix("refs/heads/")
        else { return false }
        var pattern = condition
        if pattern.last == UInt8(ascii: "/") { pattern += Array("**".utf8) }
        return Wildmatch.matches(pattern, Array(target.utf8.dropFirst("refs/heads/".utf8.count)), options: .pathname)
    }
}

/// Path helpers git's configuration loading uses.
package enum ConfigPaths {
    /// git's `normalize_path_copy`: repeated slashes made one, `.` components dropped, `..`
    /// taking the component before it away; the path as it is when `..` climbs above its start.
    package static func normalized(_ path: String) -> String {
        let source = Array(path.utf8)
        let slash = UInt8(ascii: "/")
        let dot = UInt8(ascii: ".")
        var output: [UInt8] = []
        var i = 0
        if source.first == slash {
            output.append(slash)
            i = 1
        }
        let root = output.count
        while i < source.count && source[i] == slash { i += 1 }
        func at(_ index: Int) -> UInt8 { index < source.count ? source[index] : 0 }
        while true {
            if at(i) == dot {
                if i + 1 >= source.count {
                    break
                } else if at(i + 1) == slash {
                    i += 2
                    while at(i) == slash { i += 1 }
                    continue
                } else if at(i + 1) == dot && (i + 2 >= source.count || at(i + 2) == slash) {
                    i += 2
                    while at(i) == slash { i += 1 }
                    // Up one: back over the last slash, then to the one before it.
                    guard output.count - 1 > root else { return path }
                    output.removeLast()
                    while output.count > root && output.last != slash { output.removeLast() }
                    continue
                }
            }
            while i < source.count && source[i] != slash {
                output.append(source[i])
                i += 1
            }
            guard i < source.count else { break }
            output.append(slash)
            while i < source.count && source[i] == slash { i += 1 }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// git's `strbuf_add_absolute_path`: an absolute path as it is, a relative one after the
    /// current directory (`$PWD` when it names it).
    package static func absolute(_ path: String, pwd: String?) -> String {
        guard !path.hasPrefix("/"), let directory = ConfigFiles.currentDirectory(pwd: pwd) else { return path }
        return directory.hasSuffix("/") ? directory + path : directory + "/" + path
    }

    /// The ref `HEAD` of `gitDirectory` points to, following symbolic refs (nil when `HEAD` is
    /// not symbolic).
    package static func symbolicHead(gitDirectory: String, commonDirectory: String?) -> String? {
        var name = "HEAD"
        var target: String?
        for _ in 0..<5 {
            let directory = name == "HEAD" ? gitDirectory : (commonDirectory ?? gitDirectory)
            guard let bytes = try? ConfigFiles.read("\(directory)/\(name)", limit: 4096) else { break }
            var text = bytes[...]
            while let last = text.last, GitCType.isSpace(last) { text = text.dropLast() }
            guard text.starts(with: "ref:".utf8) else { break }
            var rest = text.dropFirst(4)
            while let first = rest.first, GitCType.isSpace(first) { rest = rest.dropFirst() }
            name = String(decoding: rest, as: UTF8.self)
            target = name
        }
        return target
    }
}
