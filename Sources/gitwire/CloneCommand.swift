import GitWire

/// `gitwire clone`: makes the repository `git clone --no-checkout` makes (or, with `--bare` or
/// `--mirror`, the bare one `git clone --bare` makes).
struct CloneCommand: Subcommand {
    static let name = "clone"
    static let abstract = "Clone a repository, as git clone --no-checkout (or --bare, --mirror) does."
    static let discussion = """
        Without --bare the new directory holds a .git with the remote's branches under \
        refs/remotes/<origin>/, the remote's HEAD branch as a local branch that tracks it and \
        reflogs, as git clone --no-checkout leaves it: no file is checked out (run git checkout \
        or git switch there to fill the work tree). With --bare or --mirror, the bare repository \
        git clone --bare makes. git uses either as its own. On error prints `fatal: <message>`, \
        exits 128 and leaves nothing behind; a usage mistake exits 129. Each -c <key>=<value> \
        is added to the new repository's configuration (as git config --add adds it, in order; \
        without =, the value is true) before the fetch, so that it applies to the clone's own \
        connection (http.extraHeader, http.<url>.*, protocol.version, ...), as git clone -c does; \
        remote.<origin>.fetch, .url, .mirror and .tagOpt are refused (exit 128).
        """

    static var options: [CommandOption<Self>] {
        [
            .flag(nil, "bare", \.bare, help: "Make a bare repository."),
            .flag(
                nil, "mirror", \.mirror,
                help: "Mirror every ref of the remote, and configure the repository as a mirror (implies --bare)."),
            .flag("n", "no-checkout", \.noCheckout, help: "Check nothing out (gitwire never does)."),
            .value(
                "b", "branch", valueName: "branch", \.branch, help: "Point HEAD at this branch (or tag) of the remote."),
            .toggle(nil, "single-branch", help: "Clone only one branch: --branch's, or the remote's HEAD.") {
                $0.singleBranch = $1
            },
            .flag(nil, "no-tags", \.noTags, help: "Clone no tags, and fetch none later (remote.<name>.tagOpt)."),
            .value("o", "origin", valueName: "name", \.origin, help: "Name the remote this instead of origin."),
            .values(
                nil, "reference", valueName: "repo", \.references,
                help: "Borrow the objects of this local repository (objects/info/alternates; repeatable)."),
            .values(
                nil, "reference-if-able", valueName: "repo", \.optionalReferences,
                help: "As --reference, with a note instead of an error when it cannot serve."),
            .flag(
                "s", "shared", \.shared,
                help: "Borrow the objects of the local repository cloned instead of copying them."),
            .flag(
                nil, "dissociate", \.dissociate,
                help: "Copy the borrowed objects once cloned, and stop borrowing (the clone stands alone)."),
            .value(
                nil, "template", valueName: "template-directory", \.template,
                help: "Copy this template into the new git directory (default: init.templateDir, as git init)."),
            .value(
                nil, "separate-git-dir", valueName: "git-dir", \.separateGitDir,
                help: "Put the repository here, and a .git file naming it in the work tree."),
            .values(
                "c", "config", valueName: "key=value", \.config,
                help: "Set a configuration variable in the new repository, before the fetch (repeatable)."),
        ] + FetchArguments.options(at: \.arguments)
    }

    static var arguments: [CommandArgument<Self>] {
        [
            .optional("repository", \.repository, help: "The remote repository: a URL or a path."),
            .optional(
                "directory", \.directory,
                help: "The new directory (default: from the remote's name; ending in .git when bare)."),
        ]
    }

    var bare = false
    var mirror = false
    var noCheckout = false
    var branch: String?
    var singleBranch: Bool?
    var noTags = false
    var origin: String?
    var config: [String] = []
    var references: [String] = []
    var optionalReferences: [String] = []
    var shared = false
    var dissociate = false
    var template: String?
    var separateGitDir: String?
    var arguments = FetchArguments()
    var repository: String?
    var directory: String?

    func validate() throws {
        // git's usage_msg_opt: `fatal: <message>` and the usage, exit 129.
        if repository == nil { throw CommandLineError("You must specify a repository to clone.", fatal: true) }
    }

    func execute() throws -> Int32 {
        guard let repository else { return 129 }
        if (bare || mirror) && separateGitDir != nil {
            throw UsageError("options '--bare' and '--separate-git-dir' cannot be used together")
        }
        // git's get_repo_path: a local repository is recorded by its absolute path; any other
        // name needs a `:` and is recorded as given (insteadOf rewrites only the URL used).
        let isLocalPath = LocalCloneSource.isLocalRepository(repository, environment: Environment.all())
        if !isLocalPath && !repository.utf8.contains(UInt8(ascii: ":")) {
            throw UsageError("repository '\(repository)' does not exist")
        }
        let isBare = bare || mirror
        guard let target = directory ?? RemoteURL.cloneDirectoryName(for: repository, bare: isBare) else {
            throw UsageError("No directory name could be guessed.\nPlease specify a directory on the command line")
        }
        // git's clone writes the -c entries into the new configuration before it reads it for
        // the fetch: they apply to the clone's own connection. A bad one fails after `Cloning
        // into` (git writes them once the repository is made).
        let newEntries = Result { () throws(ConfigError) -> [ConfigEntry] in
            try config.map { argument throws(ConfigError) in try ConfigParameters.entry(argument: argument) }
        }
        let configuration = try Self.configuration(adding: (try? newEntries.get()) ?? [], target: target, bare: isBare)
        let (remote, recording) = try arguments.remote(repository, configuration: configuration)
        // Options are checked before anything is said or done, as git checks them.
        let fetchOptions = try arguments.fetchOptions(configuration: configuration)
        // git refuses a destination that is there before it says anything.
        if FileSystem.exists(target) {
            let contents = FileSystem.isDirectory(target) ? try FileSystem.contents(ofDirectory: target) : nil
            if contents?.isEmpty != true { throw RepositoryError.destinationExists(target) }
        }
        if let separateGitDir, FileSystem.exists(separateGitDir) {
            let contents =
                FileSystem.isDirectory(separateGitDir) ? try FileSystem.contents(ofDirectory: separateGitDir) : nil
            if contents?.isEmpty != true {
                throw UsageError(
                    "repository path '\(separateGitDir)' already exists and is not an empty directory.")
            }
        }
        if !arguments.quiet {
            Console.writeError(
                isBare ? "Cloning into bare repository '\(target)'...\n" : "Cloning into '\(target)'...\n")
        }
        if case .failure(let error) = newEntries {
            // git's message names the key; a value (after `=`) is never shown, whatever it holds.
            var message = error.reason ?? error.description
            if message.hasPrefix("bogus config parameter: "), let equals = message.firstIndex(of: "=") {
                message = String(message[...equals])
            }
            Console.writeError("error: \(maskedForTerminal(message))\n")
            throw UsageError("unable to write parameters to config file")
        }
        // git's init refuses a separate git directory that is there, even empty, once it has
        // said `Cloning into` (a dangling link is followed: the directory is made where it points).
        if let separateGitDir, FileSystem.exists(separateGitDir) {
            throw UsageError("\(separateGitDir) already exists")
        }
        let templateDirectory = try Self.templateDirectory(template)
        let alternates = try Self.alternates(
            references: references, optional: optionalReferences,
            shared: shared ? LocalCloneSource.repositoryPath(repository, environment: Environment.all()) : nil)
        // git's clone: -o, else clone.defaultRemoteName (a -c one too: git reads the new
        // configuration again once the -c entries are in it), else origin.
        let originName =
            try origin ?? (configuration ?? CommandConfiguration.load()).string("clone.defaultRemoteName") ?? "origin"
        if (try? Refspec("refs/heads/test:refs/remotes/\(originName)/test")) == nil {
            throw ValidationError("'\(originName)' is not a valid remote name")
        }
        let display = FetchDisplay(showsProgress: arguments.showsProgress)
        var configuredURL = repository
        if isLocalPath { configuredURL = try Self.absolutePath(repository) }
        var options = RepositoryFetchOptions(
            fetch: fetchOptions, mirror: mirror, configuredURL: configuredURL, tags: noTags ? FetchTags.none : nil,
            bare: isBare, originName: originName, branch: branch, singleBranch: singleBranch)
        options.cloneConfiguration = (try? newEntries.get()) ?? []
        options.alternates = alternates
        // The new repository is removed on a signal until the references' objects are copied in.
        options.keepsRemovalOnSignal = dissociate
        options.templateDirectory = templateDirectory
        options.separateGitDirectory = isBare ? nil : separateGitDir
        let existed = FileSystem.exists(target)
        let result = try recording.saving {
            defer { display.finish() }
            return try remote.cloneBlocking(into: target, options: options, progress: display.handler)
        }
        if dissociate {
            defer {
                SignalCleanup.forget(target)
                if let separateGitDir { SignalCleanup.forget(separateGitDir) }
            }
            do {
                try ReferenceRepository.dissociate(gitDirectory: isBare ? target : separateGitDir ?? "\(target)/.git")
            } catch {
                // git removes the clone when its repack fails.
                if existed {
                    for name in (try? FileSystem.contents(ofDirectory: target)) ?? [] {
                        try? FileSystem.removeTree("\(target)/\(name)")
                    }
                } else {
                    try? FileSystem.removeTree(target)
                }
                if !isBare, let separateGitDir { try? FileSystem.removeTree(separateGitDir) }
                throw UsageError("cannot repack to clean up")
            }
        }
        for ignored in result.ignoredRefs { Console.writeError(ignored.message + "\n") }
        // A warning: git shows it with -q too.
        if result.outcome.listing.refs.allSatisfy({ $0.objectID == nil }) {
            Console.writeError("warning: You appear to have cloned an empty repository.\n")
        }
        return 0
    }

    /// The configuration the clone's connection reads: git's, with the `-c` entries as the new
    /// repository's own (after the global ones, before the command line's); nil without any.
    /// They are given the command line's scope so that `git credential`, which gitwire runs
    /// before the new repository is complete, reads them too (in `GIT_CONFIG_PARAMETERS`, before
    /// the command line's own, so these still win), as git's transport reads the new repository's
    /// `credential.*`.
    private static func configuration(adding entries: [ConfigEntry], target: String, bare: Bool) throws
        -> GitConfiguration?
    {
        guard !entries.isEmpty else { return nil }
        var configuration = try CommandConfiguration.load()
        let file = bare ? "\(target)/config" : "\(target)/.git/config"
        let local = entries.map {
            ConfigEntry(name: $0.name, value: $0.value ?? "true", scope: .command, origin: .file(file), line: 0)
        }
        let commandLine = configuration.entries.firstIndex { $0.scope == .command } ?? configuration.entries.endIndex
        configuration.entries.insert(contentsOf: local, at: commandLine)
        return configuration
    }

    /// The `objects` directories git's clone writes into `objects/info/alternates`: each
    /// `--reference` (a repository that cannot serve is fatal), each `--reference-if-able` (one
    /// that cannot is noted with `info:`), then with `--shared` the local repository cloned
    /// (`shared`, its git directory as git names it).
    private static func alternates(references: [String], optional: [String], shared: String?) throws -> [String] {
        var result: [String] = []
        func add(_ objects: String) { if !result.contains(objects) { result.append(objects) } }
        for reference in references { add(try ReferenceRepository.gitDirectory(of: reference) + "/objects") }
        for reference in optional {
            do {
                add(try ReferenceRepository.gitDirectory(of: reference) + "/objects")
            } catch {
                Console.writeError("info: Could not add alternate for '\(reference)': \(error)\n")
            }
        }
        if let shared { add(shared + "/objects") }
        return result
    }

    /// The template git's init copies (`copy_templates`): `--template`, else `GIT_TEMPLATE_DIR`,
    /// else `init.templateDir`, else git's own; "" (nothing) for an empty one, or, with git's
    /// warning, for one that is not a directory. Without git installed (no template named and
    /// git's own missing) nil: gitwire's own `description` and `info/exclude`, and no warning
    /// about a directory the user never chose.
    private static func templateDirectory(_ option: String?) throws -> String? {
        var template = option ?? Environment.value("GIT_TEMPLATE_DIR")
        if template == nil { template = try CommandConfiguration.load().path("init.templateDir") }
        let gitsOwn = "/usr/share/git-core/templates"
        if template == nil && !FileSystem.isDirectory(gitsOwn) { return nil }
        let directory = template ?? gitsOwn
        if directory.isEmpty { return "" }
        guard FileSystem.isDirectory(directory) else {
            Console.writeError("warning: templates not found in \(directory)\n")
            return ""
        }
        if let problem = unsupportedFormat(ofTemplate: directory) {
            Console.writeError("warning: not copying templates from '\(directory)': \(problem)\n")
            return ""
        }
        return directory
    }

    /// Why git 2.39 copies nothing from the template `directory` (`copy_templates`: its
    /// `config` names a `core.repositoryformatversion` git does not read, or, in version 1, an
    /// unknown `extensions.*`, or, in version 0, an extension of version 1), in git's words
    /// (`verify_repository_format`); nil when it copies the template.
    static func unsupportedFormat(ofTemplate directory: String) -> String? {
        // Only a regular file (a link followed) is read: a FIFO there would make the clone wait.
        guard FileSystem.status("\(directory)/config")?.isRegularFile == true,
            let text = try? FileSystem.read("\(directory)/config")
        else { return nil }
        var version = -1
        var unknown: [String] = []
        var versionOne: [String] = []
        for entry in ConfigParser.parse(text).entries {
            if entry.name == "core.repositoryformatversion" {
                guard let value = entry.value.flatMap({ Int($0) }) else { return nil }
                version = value
            } else if entry.name.hasPrefix("extensions.") {
                let name = String(entry.name.dropFirst("extensions.".count))
                switch name {
                case "noop", "preciousobjects", "partialclone", "worktreeconfig": break
                case "noop-v1", "objectformat": versionOne.append(name)
                default: unknown.append(name)
                }
            }
        }
        guard version >= 0 else { return nil }
        if version > 1 { return "Expected git repo version <= 1, found \(version)" }
        if version == 1, !unknown.isEmpty {
            let title =
                unknown.count == 1 ? "unknown repository extension found:" : "unknown repository extensions found:"
            return title + unknown.map { "\n\t\($0)" }.joined()
        }
        if version == 0, !versionOne.isEmpty {
            let title =
                versionOne.count == 1
                ? "repo version is 0, but v1-only extension found:" : "repo version is 0, but v1-only extensions found:"
            return title + versionOne.map { "\n\t\($0)" }.joined()
        }
        return nil
    }

    private static func absolutePath(_ path: String) throws -> String {
        if path.hasPrefix("/") { return path }
        return try FileSystem.currentDirectory() + "/" + path
    }
}
