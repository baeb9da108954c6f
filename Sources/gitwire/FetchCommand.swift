import GitWire

/// `gitwire fetch`: `git fetch` into the repository git would find here, reporting as git does.
struct FetchCommand: Subcommand {
    static let name = "fetch"
    static let abstract = "Fetch refs and objects into the repository here, as git fetch does."
    static let discussion = """
        The repository is found as git finds it (GIT_DIR, .git upwards from the current \
        directory); a second argument that names a repository's directory and is no refspec is \
        the repository instead. <repository> is a configured remote's name (default: the current \
        branch's remote, else origin) or a URL; without refspecs a remote's remote.<name>.fetch \
        refspecs apply, and a URL's HEAD goes to FETCH_HEAD only. A branch checked out in a work \
        tree is never updated (unless --update-head-ok). Prints git's summary on standard error \
        and writes FETCH_HEAD and reflogs as git does. Exit status: 0, 1 when a ref was rejected \
        or could not be updated, 128 on errors, 129 for a usage mistake.
        """

    static var options: [CommandOption<Self>] {
        [
            .flag("v", "verbose", \.verbose, help: "Also show refs that are up to date."),
            .flag(
                nil, "all", \.all,
                help: "Fetch from every configured remote (but those with remote.<name>.skipFetchAll)."),
            .flag(
                "m", "multiple", \.multiple,
                help: "Take every argument as a remote or a group of remotes (remotes.<group>)."),
            .flag("a", "append", \.append, help: "Append to FETCH_HEAD instead of replacing it."),
            .flag(
                nil, "atomic", \.atomic,
                help: "Update the local refs all or nothing: if one cannot be updated, none is."),
            .flag("f", "force", \.force, help: "Allow updates that are not fast-forwards, for every ref."),
            .toggle("t", "tags", help: "Fetch every tag (--no-tags: none).") { $0.tags = $1 ? .all : FetchTags.none },
            .toggle("n", nil, help: "Fetch no tags (as --no-tags).") { command, _ in command.tags = FetchTags.none },
            .toggle("p", "prune", help: "Remove remote-tracking refs the remote no longer has.") { $0.prune = $1 },
            .toggle("P", "prune-tags", help: "With --prune, remove local tags the remote no longer has too.") {
                $0.pruneTags = $1
            },
            .flag(nil, "dry-run", \.dryRun, help: "Show what would change; change no ref and no FETCH_HEAD."),
            .flag(nil, "write-fetch-head", \.writeFetchHead, help: "Write FETCH_HEAD (the default)."),
            .flag("k", "keep", \.keep, help: "Keep the pack (gitwire always does)."),
            .flag(
                "u", "update-head-ok", \.updateHeadOK, help: "Allow updating the branch a work tree has checked out."),
            .flag(nil, "unshallow", \.unshallow, help: "Fetch the whole history of a shallow repository."),
            .flag(
                nil, "set-upstream", \.setUpstream,
                help: "Make the one branch fetched for FETCH_HEAD the current branch's upstream."),
            .values(
                nil, "refmap", valueName: "refmap", \.refmap,
                help: "Refspecs for the opportunistic updates of remote-tracking refs (instead of the configured ones)."
            ),
            .values("o", "server-option", valueName: "option", \.serverOptions, help: "Send this server option (v2)."),
            .toggle(
                nil, "write-commit-graph",
                help: "Write a split commit-graph of the reachable commits after fetching (fetch.writeCommitGraph)."
            ) { $0.writeCommitGraph = $1 },
        ] + FetchArguments.options(at: \.arguments)
    }

    static var arguments: [CommandArgument<Self>] {
        [
            .optional(
                "repository", \.repository,
                help: "A configured remote's name or a URL (default: the current branch's remote)."),
            .repeating("refspec", \.refspecs, help: "Refspecs ([+]<src>[:<dst>], ^<src>, tag <name>)."),
        ]
    }

    var verbose = false
    var writeCommitGraph: Bool?
    var all = false
    var multiple = false
    var append = false
    var atomic = false
    var force = false
    var tags: FetchTags?
    var prune: Bool?
    var pruneTags: Bool?
    var dryRun = false
    var writeFetchHead = true
    var keep = false
    var updateHeadOK = false
    var unshallow = false
    var setUpstream = false
    var refmap: [String] = []
    var serverOptions: [String] = []
    var arguments = FetchArguments()
    var repository: String?
    var refspecs: [String] = []

    func execute() throws -> Int32 {
        if unshallow && arguments.depth != nil {
            throw ValidationError("options '--depth' and '--unshallow' cannot be used together")
        }
        // Values are checked before anything is looked at, as git checks its options.
        _ = try parseTimeout(arguments.connection.timeout)
        var fetchOptions = try arguments.fetchOptions(unshallow: unshallow)
        switch try severalRemotes() {
        case .several(let names)?: return try fetchMultiple(names)
        case .one(let name)?:
            // --all with one remote: fetched as if named (its reflog messages still say --all).
            var one = self
            one.all = false
            one.repository = name
            return try one.execute()
        case nil: break
        }
        // The repository: a second argument that names one (and cannot be a refspec), else the
        // one git finds here.
        var refspecWords = refspecs
        var location: RepositoryLocation
        var words = subcommandWords
        if let first = refspecWords.first, (try? Refspec(first)) == nil, FileSystem.isDirectory(first),
            let named = try? RepositoryLocation(at: first)
        {
            location = named
            refspecWords.removeFirst()
            // Not part of the command git would have run: left out of the reflog messages.
            if let index = words.firstIndex(of: first) { words.remove(at: index) }
        } else {
            location = try RepositoryLocation.discover()
        }
        let configuration = try GitConfiguration.load(gitDirectory: location.gitDirectory)
        // git's fetch reads its default configuration, push.default included, and dies on it.
        try PushCommand.checkPushDefault(configuration, gitDirectory: location.gitDirectory)
        var currentBranch: String?
        if case .symbolic(let target)? = try? RefStore(
            gitDirectory: location.gitDirectory, commonDirectory: location.commonDirectory
        ).head(), target.hasPrefix("refs/heads/") {
            currentBranch = String(target.dropFirst("refs/heads/".count))
        }
        guard
            let remoteSettings = try ConfiguredRemote.named(
                repository, configuration: configuration, currentBranch: currentBranch)
        else {
            // No remote at all: git fetches from none of them (its fetch of several remotes,
            // with none), which only empties FETCH_HEAD.
            if arguments.filter != nil {
                throw ValidationError("--filter can only be used with the remote configured in extensions.partialclone")
            }
            if atomic { throw ValidationError("--atomic can only be used when fetching from one remote") }
            if !append && writeFetchHead && !dryRun {
                try FileSystem.writeAtomically(
                    [][...], to: "\(location.gitDirectory)/FETCH_HEAD", permissions: 0o666,
                    temporaryPrefix: ".FETCH_HEAD-", shared: false)
            }
            return 0
        }
        var parsed: [Refspec] = []
        var index = 0
        while index < refspecWords.count {
            if refspecWords[index] == "tag" {
                index += 1
                guard index < refspecWords.count else { throw ValidationError("you need to specify a tag name") }
                let name = refspecWords[index]
                parsed.append(try Refspec("refs/tags/\(name):refs/tags/\(name)"))
            } else {
                parsed.append(try Refspec(refspecWords[index]))
            }
            index += 1
        }
        let refmapSpecs = try refmap.map { try Refspec($0) }
        if !refmapSpecs.isEmpty && parsed.isEmpty {
            throw ValidationError("--refmap option is only meaningful with command-line refspec(s)")
        }
        if unshallow && !FileSystem.exists("\(location.commonDirectory)/shallow") {
            throw ValidationError("--unshallow on a complete repository does not make sense")
        }
        // The remote by its name (a configured one's settings, URL rewrites and transport options
        // applied by Remote itself), or the URL given.
        // git fetches from the top of the work tree: a relative path to the repository fetched
        // from is found from there, not from the subdirectory the command was started in.
        var arguments = arguments
        if CommandConfiguration.isRelativeLocalURL(remoteSettings.url),
            let top = CommandConfiguration.workTreeTopAbove()
        {
            let here = try FileSystem.currentDirectory()
            for path in [\RemoteArguments.record, \RemoteArguments.replay] {
                if let file = arguments.connection[keyPath: path], !file.hasPrefix("/") {
                    arguments.connection[keyPath: path] = "\(here)/\(file)"
                }
            }
            try FileSystem.changeDirectory(top)
        }
        let (remote, recording) = try arguments.remote(remoteSettings.name, configuration: configuration) { remote in
            if verbose, var http = remote.transport as? HTTPTransport {
                // git's remote helper runs at verbosity 2 under `fetch -v`: it announces each
                // request body (`POST git-upload-pack (<n> bytes)`) on stderr.
                http.options.postAnnouncement = { Console.writeError("\($0)\n") }
                remote.transport = http
            }
        }
        if verbose { Self.announceConnection(remote) }
        fetchOptions.serverOptions = serverOptions
        if fetchOptions.filter == nil && remoteSettings.promisor {
            // A promisor remote's fetches keep its filter (git's partial_clone_get_default_filter_spec).
            fetchOptions.filter = remoteSettings.partialCloneFilter
        }
        let reading = PackReading(fetchWith: configuration, keep: keep, filtered: fetchOptions.filter != nil)
        let display = FetchDisplay(showsProgress: arguments.showsProgress, reading: reading)
        let options = RepositoryFetchOptions(
            fetch: fetchOptions, refspecs: parsed, prune: prune, atomic: atomic, remote: remoteSettings, tags: tags,
            force: force, updateHeadOK: updateHeadOK, dryRun: dryRun, pruneTags: (parsed.isEmpty ? pruneTags : nil),
            writeFetchHead: writeFetchHead, appendFetchHead: append, refmap: refmapSpecs.isEmpty ? nil : refmapSpecs,
            reflogAction: Self.reflogAction(words), configuration: configuration)
        // git's fetch knows two `fetch.output` values (any case) and dies on any other before a
        // ref moves, with FETCH_HEAD already opened (emptied) for writing.
        let output = try configuration.string("fetch.output")
        if let output, !["full", "compact"].contains(output.lowercased()) {
            if !append && writeFetchHead && !dryRun {
                try FileSystem.writeAtomically(
                    [][...], to: "\(location.gitDirectory)/FETCH_HEAD", permissions: 0o666,
                    temporaryPrefix: ".FETCH_HEAD-", shared: false)
            }
            throw UsageError("invalid value for 'fetch.output': '\(output)'")
        }
        let result: FetchResult
        do {
            result = try recording.saving {
                defer { display.finish() }
                return try remote.fetchBlocking(
                    into: location.gitDirectory, options: options, progress: display.handler)
            }
        } catch let error where RemoteError.inside(error)?.reported(reading) != nil {
            throw RemoteError.inside(error)!.reported(reading)!
        } catch let error as RefUpdateError where atomic {
            // git's --atomic: `error: <why>`, and no ref changed; git exits with its transaction's
            // code (-1 for a name conflict, -2 otherwise).
            Console.writeError("error: \(error)\n")
            return error.isNameConflict ? 255 : 254
        }
        // git's fetch-pack with protocol v0/v1 (not with -k): haves were sent and the server
        // acknowledged none of them.
        let negotiation = result.outcome
        if negotiation.listing.protocolVersion != .v2 && !keep && negotiation.statistics.havesSent > 0
            && negotiation.commonCommits.isEmpty
        {
            Console.writeError("warning: no common commits\n")
        }
        for warning in result.warnings { Console.writeError("warning: \(warning)\n") }
        for ignored in result.ignoredRefs { Console.writeError(ignored.message + "\n") }
        let objects = try? Repository(location).objects
        var report = FetchReport(
            changes: result.changes, url: remoteSettings.url, verbose: verbose, quiet: arguments.quiet,
            dryRun: dryRun, abbreviation: FetchReport.Abbreviation(configuration: configuration, objects: objects))
        report.compact = output?.lowercased() == "compact"
        Console.writeError(report.text)
        if result.changes.contains(where: { $0.error?.isNameConflict == true }) {
            Console.writeError(
                "error: some local refs could not be updated; try running\n"
                    + " 'git remote prune \(remoteSettings.name)' to remove any old, conflicting branches\n")
        }
        // git 2.39's --atomic after a rejected ref: its transaction aborted with no message.
        if result.atomicAborted { Console.writeError("error: \n") }
        let failed = result.changes.contains { $0.kind == .rejected || $0.error != nil }
        if setUpstream && !failed && !result.atomicAborted {
            try Self.setUpstream(result, remote: remoteSettings.name, location: location, configuration: configuration)
        }
        try writeCommitGraphIfAsked(location)
        return failed ? 1 : 0
    }

    /// The remotes to fetch from one after the other, as git's `cmd_fetch` decides: `--all`'s
    /// configured remotes (but those with `remote.<name>.skipFetchAll`; a single one is fetched
    /// as if named), `--multiple`'s remotes and groups (`remotes.<group>`), or a group of more
    /// than one remote named alone; nil for the fetch of one remote.
    private func severalRemotes() throws -> SeveralRemotes? {
        if all && repository != nil {
            throw ValidationError(
                refspecs.isEmpty
                    ? "fetch --all does not take a repository argument"
                    : "fetch --all does not make sense with refspecs")
        }
        guard all || repository != nil else { return nil }
        let location = try RepositoryLocation.discover()
        let configuration = try GitConfiguration.load(gitDirectory: location.gitDirectory)
        let configured = ConfiguredRemote.configuredNames(configuration)
        // add_remote_or_group: a group's members (as written), else a configured remote.
        func remoteOrGroup(_ name: String) -> [String]? {
            var members: [String] = []
            // get_remote_group compares the canonical name itself (any name, a URL too).
            for entry in configuration.entries where entry.name == "remotes.\(name)" {
                members += (entry.value ?? "").split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).map(
                    String.init)
            }
            if !members.isEmpty { return members }
            return configured.contains(name) ? [name] : nil
        }
        if all {
            var names: [String] = []
            for name in configured where try configuration.bool("remote.\(name).skipFetchAll") != true {
                names.append(name)
            }
            return names.count == 1 ? .one(names[0]) : .several(names)
        }
        guard let repository else { return nil }
        if multiple {
            var names: [String] = []
            for name in [repository] + refspecs {
                guard let found = remoteOrGroup(name) else {
                    throw ValidationError("no such remote or remote group: \(name)")
                }
                names += found
            }
            return .several(names)
        }
        guard let group = remoteOrGroup(repository), group.count > 1 else { return nil }
        if !refspecs.isEmpty { throw ValidationError("fetching a group and specifying refspecs does not make sense") }
        return .several(group)
    }

    /// What ``severalRemotes()`` decided.
    private enum SeveralRemotes {
        case one(String)
        case several([String])
    }

    /// Several remotes, as git's `fetch_multiple`: `FETCH_HEAD` emptied once, then for each remote
    /// in turn `Fetching <name>` on standard output and the fetch git's child `git fetch --append
    /// --no-auto-gc --no-write-commit-graph <options> <name>` makes (its reflog messages name
    /// that command line); a remote that fails is `error: could not fetch <name>` and exit
    /// status 1, the others are still fetched.
    /// git's cmd_fetch, at its end: a split commit-graph of what the refs reach, with
    /// `--write-commit-graph` or `fetch.writeCommitGraph`.
    private func writeCommitGraphIfAsked(_ location: RepositoryLocation) throws {
        let configuration = try GitConfiguration.load(gitDirectory: location.gitDirectory)
        guard try writeCommitGraph ?? configuration.bool("fetch.writeCommitGraph") ?? false else { return }
        let version = try configuration.int("commitGraph.generationVersion") ?? 2
        try Repository(location).writeReachableCommitGraph(generationData: version == 2)
    }

    private func fetchMultiple(_ names: [String]) throws -> Int32 {
        let location = try RepositoryLocation.discover()
        if !append && writeFetchHead && !dryRun {
            try FileSystem.writeAtomically(
                [][...], to: "\(location.gitDirectory)/FETCH_HEAD", permissions: 0o666, temporaryPrefix: ".FETCH_HEAD-",
                shared: false)
        }
        // add_options_to_argv: what the children are told, in git's order.
        var options = ["--append", "--no-auto-gc", "--no-write-commit-graph"]
        if dryRun { options.append("--dry-run") }
        if let prune { options.append(prune ? "--prune" : "--no-prune") }
        if let pruneTags { options.append(pruneTags ? "--prune-tags" : "--no-prune-tags") }
        if updateHeadOK { options.append("--update-head-ok") }
        if force { options.append("--force") }
        if keep { options.append("--keep") }
        if tags == .all { options.append("--tags") } else if tags == FetchTags.none { options.append("--no-tags") }
        if verbose { options.append("-v") } else if arguments.quiet { options.append("-q") }
        var status: Int32 = 0
        for name in names {
            if !arguments.quiet { try Console.writeOutput("Fetching \(name)\n") }
            var child = self
            child.all = false
            child.multiple = false
            child.refspecs = []
            child.append = true
            // git 2.39 does not pass --no-write-fetch-head on: its children write FETCH_HEAD.
            child.writeFetchHead = true
            child.repository = name
            child.writeCommitGraph = false
            subcommandWords = options + [name]
            if child.runReportingErrors() != 0 {
                Console.writeError("error: could not fetch \(maskedForTerminal(name))\n")
                status = 1
            }
        }
        // The children write none; git's fetch writes it once they are done.
        try writeCommitGraphIfAsked(location)
        return status
    }

    /// git's reflog action for this command line (`fetch` and each argument, credentials
    /// removed), without gitwire's own options (which git would not have been given).
    static func reflogAction(_ words: [String]) -> String {
        var action = "fetch"
        var skipNext = false
        for word in words {
            if skipNext {
                skipNext = false
                continue
            }
            if ["--protocol-version", "--timeout", "--record"].contains(word) {
                skipNext = true
                continue
            }
            if ["--protocol-version=", "--timeout=", "--record="].contains(where: { word.hasPrefix($0) }) { continue }
            action += " " + RemoteURL.withoutCredentials(word)
        }
        return action
    }

    /// git's git:// connection, told with -v (`Looking up <host> ... done.`, `Connecting to …`);
    /// nothing for other transports.
    static func announceConnection(_ remote: Remote) {
        guard remote.url.scheme == .git, let host = remote.url.host else { return }
        let port = String(remote.url.port ?? 9418)
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let address = UserDatabase.firstAddress(bare) ?? bare
        Console.writeError("Looking up \(host) ... done.\nConnecting to \(host) (port \(port)) ... \(address) done.\n")
    }
}
