import GitWire

/// `gitwire push`: pushes refs of the local repository to a remote, printing what `git push`
/// prints.
struct PushCommand: Subcommand {
    static let name = "push"
    static let abstract = "Update remote refs and send the objects they need, as git push does."
    static let discussion = """
        Pushes from $GIT_DIR, or the repository found from the current directory. <repository> is \
        a URL, a path, or the name of a remote configured there (its remote-tracking refs are then \
        updated after the push, as git updates them); without one, branch.<name>.pushRemote, \
        remote.pushDefault, branch.<name>.remote, the only remote or origin, as git chooses. \
        Refspecs: [+]<src>[:<dst>], :<dst> deletes; \
        <src> is a ref or a revision (HEAD~1, an abbreviated id). Without refspecs, push.default \
        decides (simple, current, upstream, matching, nothing). \
        Prints git's summary on standard error (standard output with --porcelain); exit status 0, \
        1 when a ref was rejected, 128 on errors. Progress as git shows it on a terminal, or with \
        --progress. Stored deltas are sent as they are; other objects are searched for new \
        deltas as git searches (window 10, depth 50).
        """

    static var options: [CommandOption<Self>] {
        [
            // git's OPT__VERBOSITY: each -v one more, each -q one less, the last direction wins.
            .toggle("q", "quiet", help: "Print nothing unless something fails.") { command, on in
                command.verbosity = on ? (command.verbosity <= 0 ? command.verbosity - 1 : -1) : 0
            },
            .toggle("v", "verbose", help: "Also show the URL, refs that are up to date and tracking refs updated.") {
                command, on in
                command.verbosity = on ? (command.verbosity >= 0 ? command.verbosity + 1 : 1) : 0
            },
            .toggle(
                nil, "verify",
                help: "With --no-verify, do not run the pre-push hook."
            ) {
                $0.verify = $1
            },
            .optionalValue("signed", valueName: "mode", help: "Refused unless false: gitwire signs no pushes.") {
                command, value, undone in
                command.signed = undone ? nil : value ?? "true"
            },
            .optionalValue(
                "recurse-submodules", valueName: "no", help: "Only no: gitwire does not push submodules."
            ) { command, value, undone in
                guard undone || value != nil else {
                    throw UsageError("option `recurse-submodules' requires a value")
                }
                command.recurseSubmodules = undone ? nil : value
            },
            .flag(
                "u", "set-upstream", \.setUpstream, help: "Make each branch pushed track the branch it was pushed to."),
            .flag(nil, "progress", \.progress, help: "Show progress even when standard error is not a terminal."),
            .flag(nil, "no-progress", \.noProgress, help: "Show no progress, even on a terminal."),
            .flag("f", "force", \.force, help: "Allow non-fast-forward updates."),
            .flag(nil, "atomic", \.atomic, help: "Update all refs or none."),
            .flag("n", "dry-run", \.dryRun, help: "Do everything but send the update."),
            .flag(nil, "porcelain", \.porcelain, help: "Machine-readable output on standard output."),
            .flag("d", "delete", \.delete, help: "Delete the refs named."),
            .flag(nil, "all", \.all, help: "Push every branch."),
            .flag(nil, "tags", \.tags, help: "Push every tag too."),
            .flag(nil, "mirror", \.mirror, help: "Push every ref, forced, and delete the remote's others."),
            .flag(nil, "prune", \.prune, help: "Delete the remote refs the refspecs' patterns map to no local ref."),
            .toggle(nil, "follow-tags", help: "Push the annotated tags the pushed commits reach.") {
                $0.followTags = $1
            },
            .optionalValue(
                "force-with-lease", valueName: "refname>:<expect",
                help: "Update only while the remote's ref holds what is expected."
            ) { command, value, undone in
                if undone {
                    command.leases = []
                } else {
                    command.leases.append(value ?? "")
                }
            },
            .value(
                nil, "receive-pack", valueName: "command", \.receivePack,
                help: "The command that runs git-receive-pack on the remote."),
            .value(nil, "exec", valueName: "command", \.receivePack, help: nil),
            .values("o", "push-option", valueName: "option", \.pushOptions, help: "A push option for the server."),
        ] + RemoteArguments.options(at: \.connection)
    }

    static var arguments: [CommandArgument<Self>] {
        [
            .optional(
                "repository", \.repository,
                help: "The remote: a URL, a path or a configured remote's name (default: the branch's push remote)."),
            .repeating("refspecs", \.refspecs, help: "Refspecs ([+]<src>[:<dst>], :<dst>)."),
        ]
    }

    /// git's verbosity: below 0 with -q, above 0 with -v.
    var verbosity = 0
    var quiet: Bool { verbosity < 0 }
    var verbose: Bool { verbosity > 0 }
    var setUpstream = false
    var verify = true
    var signed: String?
    var recurseSubmodules: String?
    var progress = false
    var noProgress = false
    var force = false
    var atomic = false
    var dryRun = false
    var porcelain = false
    var delete = false
    var all = false
    var tags = false
    var pushOptions: [String] = []
    var mirror = false
    var prune = false
    var followTags: Bool?
    /// `--force-with-lease` values in order ("" for the bare option).
    var leases: [String] = []
    var receivePack: String?
    var connection = RemoteArguments()
    var repository: String?
    var refspecs: [String] = []

    func execute() throws -> Int32 {
        try Self.checkSigned(signed)
        try Self.checkRecurseSubmodules(recurseSubmodules)
        let gitDirectory = try PackObjectsCommand.gitDirectory()
        let configuration = try GitConfiguration.load(gitDirectory: gitDirectory)
        try Self.checkPushDefault(configuration, gitDirectory: gitDirectory)
        // Refspecs are read in the repository's format (a negative one may not be an object id).
        let format = try Repository.objectFormat(ofGitDirectory: gitDirectory)
        if delete && refspecs.isEmpty { throw UsageError("--delete doesn't make sense without any refs") }
        let repository = try self.repository ?? Self.defaultDestination(configuration, gitDirectory: gitDirectory)
        // A URL named on the command line is rewritten by pushInsteadOf, as git rewrites it.
        let rewrites = try configuration.urlRewrites()
        var url = rewrites.rewrittenForPush(repository) ?? repository
        // git's transport URL, shown and given to the hook: insteadOf applies too (the remote
        // made from `url` applies it itself).
        var pushedURL = rewrites.rewrittenForPush(repository) ?? rewrites.rewritten(repository)
        var urls = [url]
        var tracking: [Refspec] = []
        var configuredPushes: [String] = []
        // git's push: `remote.<name>.mirror` of the remote pushed to (by name) is --mirror.
        var mirroring = mirror
        // git reads every remote's push refspecs before pushing anywhere: one it refuses stops
        // the push (`fatal: invalid refspec`), whatever is pushed where.
        for entry in configuration.entries
        where entry.name.hasPrefix("remote.") && entry.name.hasSuffix(".push") && entry.name.count > 12 {
            if let value = entry.value { _ = try PushRefspec(value, objectFormat: format) }
        }
        if !repository.contains("/") && !repository.contains(":"),
            let configured = try configuration.remoteURLs(named: repository)
        {
            urls = configured.pushURLs.isEmpty ? [configured.urls.first ?? repository] : configured.pushURLs
            url = urls[0]
            pushedURL = url
            tracking = try configuration.all("remote.\(repository).fetch").compactMap { $0 }.map { try Refspec($0) }
            configuredPushes = try configuration.all("remote.\(repository).push").compactMap { $0 }
            if try configuration.bool("remote.\(repository).mirror") == true { mirroring = true }
        }
        var specs = try refspecs.map { text in
            if delete {
                guard !text.isEmpty && !text.contains(":") else {
                    throw UsageError("--delete only accepts plain target ref names")
                }
                return try PushRefspec(":\(text)", objectFormat: format)
            }
            return try PushRefspec(text, objectFormat: format)
        }
        // git's checks, in its order and words, once the remote (and so its mirror setting) is known.
        if all && tags { throw UsageError("options '--all' and '--tags' cannot be used together") }
        if all && !refspecs.isEmpty { throw UsageError("--all can't be combined with refspecs") }
        if mirroring && tags { throw UsageError("options '--mirror' and '--tags' cannot be used together") }
        if mirroring && !refspecs.isEmpty { throw UsageError("--mirror can't be combined with refspecs") }
        if mirroring && all { throw UsageError("options '--all' and '--mirror' cannot be used together") }
        // Refs only: the push opens the repository's objects itself (opening them reads and checks
        // every pack index), once, while the server starts.
        let refStore = try Repository.refs(ofGitDirectory: gitDirectory)
        var opened: Repository?
        var leases: [PushLease] = []
        for text in self.leases {
            guard !text.isEmpty else {
                leases.append(PushLease(ref: nil))
                continue
            }
            guard let colon = text.firstIndex(of: ":") else {
                leases.append(PushLease(ref: text))
                continue
            }
            let expect = String(text[text.index(after: colon)...])
            var expected: ObjectID?
            if !expect.isEmpty {
                let repositoryHandle = try opened ?? Repository(gitDirectory: gitDirectory)
                opened = repositoryHandle
                guard let id = try repositoryHandle.resolveRevision(expect) else {
                    Console.writeError("error: cannot parse expected object name '\(expect)'\n")
                    return 129
                }
                expected = id
            }
            leases.append(PushLease(ref: String(text[..<colon]), expectation: .value(expected)))
        }
        // git's --mirror with remote.<name>.push mirrors (and prunes) only within those
        // refspecs; gitwire's mirror covers every ref, so it would delete refs git leaves alone:
        // refused rather than done differently.
        if mirroring && !configuredPushes.isEmpty {
            throw ReportedFailure(
                text: Array(
                    """
                    fatal: --mirror with remote.\(repository).push is not supported by gitwire: git would mirror only \
                    the refs those refspecs name

                    """.utf8))
        }
        var matching = false
        var setsUpstream = setUpstream
        // git's push: without refspecs (and without --all or --tags), the remote's configured
        // push refspecs (`remote.<name>.push`), else push.default.
        if specs.isEmpty && !all && !tags && !mirroring && !configuredPushes.isEmpty {
            specs = try configuredPushes.map { try PushRefspec($0, objectFormat: format) }
        }
        if specs.isEmpty && !all && !tags && !mirroring {
            let autoSetupRemote = try configuration.bool("push.autosetupremote") ?? false
            switch try Self.defaultRefspec(
                configuration: configuration, refs: refStore, remoteName: repository, autoSetupRemote: autoSetupRemote)
            {
            case .matching: matching = true
            case .refspec(let spec):
                specs = [spec]
                // git's push.autoSetupRemote: a default push of a branch with no upstream sets it.
                if autoSetupRemote, let source = spec.source, source.hasPrefix("refs/heads/"),
                    try configuration.all("branch.\(source.dropFirst("refs/heads/".count)).merge").isEmpty
                {
                    setsUpstream = true
                }
            }
        }
        // git pushes to each of the remote's push URLs in turn (its `pushurl`s, else its `url`s):
        // one that fails is counted and the next pushed to; a fatal error ends the push.
        func push(to url: String, pushedURL: String) throws -> Int32 {
            // --receive-pack names the program of the live connection, recorded or not; a replay
            // runs no program, so there it changes nothing (the recorded command line replays as it is).
            let command = try receivePack ?? Self.configuredReceivePack(configuration, remote: repository)
            // What receive-pack (or ssh) says once the connection closes comes after what git prints
            // before closing it (send-pack's errors, or its death): held until those are printed.
            let programOutput = HeldErrorOutput()
            defer { programOutput.release() }
            let (pushing, recording) = try connection.remote(Self.fromTopOfWorkTree(url)) { remote in
                remote.programErrorOutput = programOutput.output
                if verbose, var http = remote.transport as? HTTPTransport {
                    // git's remote helper runs at verbosity 2 under `push -v`.
                    http.options.postAnnouncement = { Console.writeError("\($0)\n") }
                    remote.transport = http
                }
                guard let command else { return }
                if var local = remote.transport as? LocalTransport {
                    local.receivePack = command
                    remote.transport = local
                } else if var ssh = remote.transport as? SSHTransport {
                    ssh.receivePack = command
                    remote.transport = ssh
                }
            }
            // git's rule: --progress or --no-progress decides; otherwise a terminal and no -q.
            let showsProgress = noProgress ? false : progress || (!quiet && Console.errorIsTerminal)
            let display = FetchDisplay(showsProgress: showsProgress)
            var options = RepositoryPushOptions(
                protocolVersion: try connection.version(), force: force, atomic: atomic, dryRun: dryRun,
                pushOptions: pushOptions, all: all, tags: tags, progress: showsProgress, quiet: quiet,
                trackingRefspecs: tracking, agent: FetchArguments.userAgent
            )
            options.leases = leases
            options.mirror = mirroring
            options.prune = prune
            options.matching = matching
            options.configuredRefspecs = try configuredPushes.map { try PushRefspec($0, objectFormat: format) }
            if let mode = try configuration.string("push.default"), mode == "upstream" || mode == "tracking" {
                options.upstreams = try Self.upstreams(configuration)
            }
            options.followTags = try followTags ?? configuration.bool("push.followtags") ?? false
            let shown = RemoteURL.withoutCredentials(pushedURL)
            if verbose {
                Console.writeError("Pushing to \(shown)\n")
                FetchCommand.announceConnection(pushing)
            }
            if let hook = try Self.prePushHook(configuration, commonDirectory: refStore.commonDirectory, verify: verify)
            {
                options.prePush = Self.prePushCheck(
                    hook, remote: repository, url: pushedURL, format: format, configuration: configuration)
            }
            let result: PushResult
            do {
                result = try recording.saving {
                    defer { display.finish() }
                    return try pushing.pushBlocking(
                        from: gitDirectory, updates: specs, options: options, progress: display.handler,
                        exchangeEnded: programOutput.hold)
                }
            } catch let error as PushError where error.stopsSendPack {
                // git's send-pack dies, and receive-pack then finds its input ended.
                Console.writeError("fatal: \(error.message)\n")
                return 128
            } catch let error as PushHungUpError {
                // receive-pack's own last words (if any) first: it ended before send-pack noticed.
                programOutput.release()
                if let said = error.demultiplexerError {
                    Console.writeError("send-pack: \(said)\n")
                } else if error.sideBand {
                    Console.writeError("send-pack: unexpected disconnect while reading sideband packet\n")
                }
                Console.writeError("fatal: the remote end hung up unexpectedly\n")
                return 128
            } catch let error as PushRequestFailedError {
                // git's remote helper dies with its message, then its send-pack with the hang-up.
                Console.writeError("fatal: \(error.underlying)\n")
                if error.sideBand {
                    Console.writeError("send-pack: unexpected disconnect while reading sideband packet\n")
                }
                Console.writeError("fatal: the remote end hung up unexpectedly\n")
                Console.writeError("error: failed to push some refs to '\(shown)'\n")
                return 1
            } catch is PrePushHookFailure {
                programOutput.release()
                Console.writeError("error: failed to push some refs to '\(shown)'\n")
                return 1
            } catch let error as PushMatchError {
                let advises = try configuration.bool("advice.pushunqualifiedrefname") ?? true
                for (index, message) in error.errors.enumerated() {
                    Console.writeError("error: \(message)\n")
                    if advises, let hint = error.hints[index] {
                        Console.writeError(hint.split(separator: "\n").map { "hint: \($0)\n" }.joined())
                    }
                }
                programOutput.release()
                Console.writeError("error: failed to push some refs to '\(shown)'\n")
                return 1
            } catch let error as PushHelperError {
                // Over smart HTTP git's send-pack runs under git-remote-http: it dies with this, the
                // helper then with its lost connection, and push reports what it refused itself.
                Console.writeError("fatal: \(error.error.message)\nfatal: the remote end hung up unexpectedly\n")
                if !error.result.refs.isEmpty {
                    let text = Self.summary(error.result, url: shown, porcelain: porcelain)
                    if porcelain { try Console.writeOutput(text) } else { Console.writeError(text) }
                }
                Console.writeError("error: failed to push some refs to '\(shown)'\n")
                if let hint = Self.hint(error.result, head: try? refStore.head()) {
                    Console.writeError(hint.split(separator: "\n").map { "hint: \($0)\n" }.joined())
                }
                return 1
            }
            for warning in result.warnings { Console.writeError("warning: \(warning)\n") }
            for error in result.errors { Console.writeError("error: \(error)\n") }
            programOutput.release()
            let failed = !result.succeeded
            let head = try? refStore.head()
            if porcelain || !quiet || failed {
                let text = Self.summary(result, url: shown, porcelain: porcelain, verbose: verbose)
                if porcelain { try Console.writeOutput(text) } else { Console.writeError(text) }
            }
            if result.trackingRefusedBySharedRepository {
                // git dies taking the first remote-tracking ref's lock, after telling of it with -v.
                let moved = result.refs.lazy.filter { $0.status == .ok || $0.status == .upToDate }
                if verbose,
                    let first = moved.compactMap({ ref in
                        tracking.lazy.compactMap { $0.destination(for: ref.destination) }.first
                    }).first
                {
                    Console.writeError("updating local tracking ref '\(first)'\n")
                }
                FileSystem.checkSharedRepositoryRefusal()
            }
            if setsUpstream {
                try Self.setUpstreams(
                    result, remote: repository, refs: refStore, configuration: configuration,
                    dryRun: dryRun, quiet: quiet)
            }
            if verbose && !dryRun {
                // git's transport_update_tracking_ref, told with -v.
                for ref in result.refs where ref.status == .ok || ref.status == .upToDate {
                    if let local = tracking.lazy.compactMap({ $0.destination(for: ref.destination) }).first {
                        Console.writeError("updating local tracking ref '\(local)'\n")
                    }
                }
            }
            for error in result.trackingErrors {
                Console.writeError(
                    "error: update_ref failed for ref '\(escapedForDisplay(error.name.utf8))': \(error)\n")
            }
            // git's send-pack fails the push itself when the report says the unpack failed (or
            // cannot be read): then its push prints no "Done" (over smart HTTP the helper's failure
            // is not heard, and "Done" comes).
            let sendPackFailed = pushing.transport.connectionPersists && !(result.report?.problems.isEmpty ?? true)
            if porcelain {
                if !sendPackFailed { try Console.writeOutput("Done\n") }
            } else if !quiet && !failed && !result.refs.contains(where: { $0.status == .ok }) {
                Console.writeError("Everything up-to-date\n")
            }
            guard failed else { return 0 }
            Console.writeError("error: failed to push some refs to '\(shown)'\n")
            if let hint = Self.hint(result, head: head) {
                Console.writeError(hint.split(separator: "\n").map { "hint: \($0)\n" }.joined())
            }
            return 1
        }
        var status: Int32 = 0
        for (index, target) in urls.enumerated() {
            let code = try push(to: target, pushedURL: index == 0 ? pushedURL : target)
            if code == 128 { return code }
            if code != 0 { status = 1 }
        }
        return status
    }
}
