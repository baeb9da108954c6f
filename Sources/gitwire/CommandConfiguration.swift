import GitWire

/// The one place the command line's configuration comes from: git's options before the command
/// (`-c`, `--config-env`, `-C`) applied to the process as git applies them, and the
/// configuration git would read where the command runs (system, global, the repository's if
/// the command runs inside one, then the command line), loaded once, when a command first needs
/// it.
enum CommandConfiguration {
    /// What `gitwire` prints for a mistake in its options before the command (then exit 129).
    static let usage = """
        usage: gitwire [-v | --version] [-h | --help] [-C <path>] [-c <name>=<value>]
                       [--git-dir=<path>] [--work-tree=<path>] [--config-env=<name>=<envvar>]
                       <command> [<args>]

        """

    /// Reads git's options at the front of `words` and applies them: each `-C` changes the
    /// directory in turn, the `-c` and `--config-env` settings go into `GIT_CONFIG_PARAMETERS` so
    /// that the configuration loaded here and the programs gitwire starts (credential helpers,
    /// ssh) see them, as git's children do; `--git-dir` and `--work-tree` set `GIT_DIR` and
    /// `GIT_WORK_TREE`, as git sets them. Returns the words after them (the command and its
    /// arguments), or the exit status git gives a mistake: 129 after its message and the usage,
    /// 128 after `fatal: …`.
    static func applyGlobalOptions(_ words: [String]) -> Result<[String], ExitStatus> {
        do {
            // The environment only for `--config-env`, and the variables only when an option sets
            // them: a dictionary of strings is the first thing that makes the Swift runtime look
            // up a conformance (String: Hashable), which reads every conformance record of the
            // binary, and `gitwire --version` had its pages resident for nothing.
            let readsEnvironment = words.contains { $0 == "--config-env" || $0.hasPrefix("--config-env=") }
            let options = try GlobalOptions(words, environment: readsEnvironment ? Environment.all() : [:])
            if !options.options.isEmpty {
                let names = ["GIT_CONFIG_PARAMETERS", "GIT_DIR", "GIT_WORK_TREE"]
                let before = current(names)
                let updated = options.environment(updating: before)
                for name in names {
                    if let value = updated[name], value != before[name] { Environment.set(name, value) }
                }
            }
            try options.changeDirectories()
            if let first = options.remaining.first, first.hasPrefix("-"),
                !["-h", "--help", "-v", "--version"].contains(first)
            {
                Console.writeError("unknown option: \(maskedForTerminal(first))\n" + usage)
                return .failure(ExitStatus(129))
            }
            return .success(options.remaining)
        } catch {
            if error.dies {
                Console.writeError("fatal: \(maskedForTerminal(error.message))\n")
                return .failure(ExitStatus(128))
            }
            Console.writeError("\(maskedForTerminal(error.message))\n" + usage)
            return .failure(ExitStatus(129))
        }
    }

    /// The process's values of `names`, those that are set.
    private static func current(_ names: [String]) -> [String: String] {
        var values: [String: String] = [:]
        for name in names { values[name] = Environment.value(name) }
        return values
    }

    /// An exit status to end with.
    struct ExitStatus: Error {
        let code: Int32
        init(_ code: Int32) { self.code = code }
    }

    /// The configuration git would read here, loaded on first use: a ``ConfigError`` is thrown
    /// with git's message (and printed by the command as git prints it).
    static func load() throws -> GitConfiguration {
        if let loaded = cache.loaded { return try loaded.get() }
        let result = Result { () throws(ConfigError) -> GitConfiguration in
            try GitConfiguration.load(gitDirectory: gitDirectory())
        }
        cache.loaded = result.mapError { $0 as any Error }
        return try result.get()
    }

    /// A remote for `repository` (a remote's name or a URL) with the configuration applied, as
    /// `git ls-remote`, `git fetch` and `git clone` make theirs; `timeout` bounds its waits.
    static func remote(_ repository: String, timeout: Duration?) throws -> Remote {
        try Remote(repository, configuration: try load(), timeout: timeout)
    }

    /// The remote a command uses when none is named, as git's `remote_get(NULL)` chooses it:
    /// `branch.<name>.remote` of the branch `HEAD` names, else the only remote configured, else
    /// `origin` (``ConfiguredRemote/defaultName(configuration:currentBranch:)``).
    static func defaultRemoteName(_ configuration: GitConfiguration) throws -> String {
        var currentBranch: String?
        if let gitDirectory = configuration.gitDirectory,
            let file = try? File.openForReading("\(gitDirectory)/HEAD"), let bytes = try? file.read(upTo: 4096)
        {
            var text = String(decoding: bytes, as: UTF8.self)
            while let last = text.last, last == "\n" || last == "\r" { text.removeLast() }
            if text.hasPrefix("ref: refs/heads/") { currentBranch = String(text.dropFirst("ref: refs/heads/".count)) }
        }
        return try ConfiguredRemote.defaultName(configuration: configuration, currentBranch: currentBranch)
    }

    private final class Cache: @unchecked Sendable {
        var loaded: Result<GitConfiguration, any Error>?
    }

    /// One command runs per process, on its main thread: the cache needs no lock.
    private static let cache = Cache()

    /// Whether `url` is a relative path to a local repository: git's `url_is_local_not_ssh` (no
    /// scheme, no `host:` before the first slash) and not absolute.
    static func isRelativeLocalURL(_ url: String) -> Bool {
        let colon = url.firstIndex(of: ":")
        let slash = url.firstIndex(of: "/")
        let isLocal = !url.utf8.containsSubsequence("://".utf8) && (colon == nil || (slash != nil && slash! < colon!))
        return isLocal && !url.hasPrefix("/")
    }

    /// The top of the work tree when the command was started in one of its subdirectories (git
    /// runs its commands from the top: `setup_git_directory` changes to it, so relative paths
    /// to other repositories are found from there); nil at the top, outside a work tree, in a
    /// git directory, or with `GIT_DIR` set (git stays where it was started).
    static func workTreeTopAbove() -> String? {
        guard Environment.value("GIT_DIR") == nil, let location = try? RepositoryLocation.discover(),
            let top = location.workTree, let here = try? FileSystem.currentDirectory(), here != top,
            here.hasPrefix(top + "/"), !here.hasPrefix(location.gitDirectory + "/"), here != location.gitDirectory
        else { return nil }
        return top
    }

    /// The git directory of the repository the command runs in, if any, as git's
    /// `setup_git_directory_gently` finds it: `GIT_DIR`, else the repository
    /// ``RepositoryLocation/discover(from:environment:)`` finds upwards, by git's rules. A
    /// repository found there that may not be used (another user's that `safe.directory` does
    /// not name, a bare one under `safe.bareRepository=explicit`, a format git does not read) is
    /// no repository, as git's gentle setup takes it: its configuration (`core.sshCommand`,
    /// `credential.helper`, remotes…) is not read. Commands that work outside a repository
    /// (ls-remote, clone) use it only for its configuration.
    static func gitDirectory() -> String? {
        if let directory = Environment.value("GIT_DIR"), !directory.isEmpty { return directory }
        return try? RepositoryLocation.discover().gitDirectory
    }
}
