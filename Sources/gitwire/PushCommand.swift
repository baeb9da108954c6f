import GitWire

/// `gitwire push`: pushes refs of the local repository to a remote, printing what `git push`
/// prints.
struct PushCommand: Subcommand {
    static let name = "push"
    static let abstract = "Update remote refs and send the objects they need, as git push does."
    static let discussion = """
        Pushes from $GIT_DIR, or the repository found from the current directory. <repository> is \
        a URL, a path, or the name of a remote configured there (its remote-tracking refs are then \
        updated after the push, as git updates them). Refspecs: [+]<src>[:<dst>], :<dst> deletes. \
        Prints git's summary on standard error (standard output with --porcelain); exit status 0, \
        1 when a ref was rejected, 128 on errors. Progress as git shows it on a terminal, or with \
        --progress. Stored deltas are sent as they are; other objects are searched for new \
        deltas as git searches (window 10, depth 50).
        """

    static var options: [CommandOption<Self>] {
        [
            .flag("q", "quiet", \.quiet, help: "Print nothing unless something fails."),
            .flag(nil, "progress", \.progress, help: "Show progress even when standard error is not a terminal."),
            .flag(nil, "no-progress", \.noProgress, help: "Show no progress, even on a terminal."),
            .flag("f", "force", \.force, help: "Allow non-fast-forward updates."),
            .flag(nil, "atomic", \.atomic, help: "Update all refs or none."),
            .flag("n", "dry-run", \.dryRun, help: "Do everything but send the update."),
            .flag(nil, "porcelain", \.porcelain, help: "Machine-readable output on standard output."),
            .flag("d", "delete", \.delete, help: "Delete the refs named."),
            .flag(nil, "all", \.all, help: "Push every branch."),
            .flag(nil, "tags", \.tags, help: "Push every tag too."),
            .values("o", "push-option", valueName: "option", \.pushOptions, help: "A push option for the server."),
        ] + RemoteArguments.options(at: \.connection)
    }

    static var arguments: [CommandArgument<Self>] {
        [
            .required("repository", \.repository, help: "The remote: a URL, a path or a configured remote's name."),
            .repeating("refspecs", \.refspecs, help: "Refspecs ([+]<src>[:<dst>], :<dst>)."),
        ]
    }

    var quiet = false
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
    var connection = RemoteArguments()
    var repository = ""
    var refspecs: [String] = []

    func execute() throws -> Int32 {
        let gitDirectory = try PackObjectsCommand.gitDirectory()
        let configuration = try GitConfiguration.load(gitDirectory: gitDirectory)
        var url = repository
        var tracking: [Refspec] = []
        if !repository.contains("/") && !repository.contains(":"),
            let configured = try configuration.remoteURLs(named: repository), let first = configured.urls.first
        {
            url = configured.pushURLs.first ?? first
            tracking = try configuration.all("remote.\(repository).fetch").compactMap { $0 }.map { try Refspec($0) }
        }
        if delete && refspecs.isEmpty { throw UsageError("--delete doesn't make sense without any refs") }
        if all && !refspecs.isEmpty { throw UsageError("--all can't be combined with refspecs") }
        let specs = try refspecs.map { text in
            if delete {
                guard !text.contains(":") else { throw UsageError("--delete only accepts plain target ref names") }
                return PushRefspec(source: nil, destination: text)
            }
            return try PushRefspec(text)
        }
        if specs.isEmpty && !all && !tags {
            throw UsageError("gitwire push needs refspecs, --all or --tags (it does not read push.default)")
        }
        let (remote, recording) = try connection.remote(url)
        // git's rule: --progress or --no-progress decides; otherwise a terminal and no -q.
        let showsProgress = noProgress ? false : progress || (!quiet && Console.errorIsTerminal)
        let display = FetchDisplay(showsProgress: showsProgress)
        let options = RepositoryPushOptions(
            protocolVersion: try connection.version(), force: force, atomic: atomic, dryRun: dryRun,
            pushOptions: pushOptions, all: all, tags: tags, progress: showsProgress, quiet: quiet,
            trackingRefspecs: tracking
        )
        let shown = RemoteURL.withoutCredentials(url)
        let result: PushResult
        do {
            result = try recording.saving {
                defer { display.finish() }
                return try remote.pushBlocking(
                    from: gitDirectory, updates: specs, options: options, progress: display.handler)
            }
        } catch let error as PushMatchError {
            for message in error.errors { Console.writeError("error: \(message)\n") }
            Console.writeError("error: failed to push some refs to '\(shown)'\n")
            return 1
        }
        for warning in result.warnings { Console.writeError("warning: \(warning)\n") }
        for error in result.errors { Console.writeError("error: \(error)\n") }
        let failed = !result.succeeded
        let head = try? Repository(gitDirectory: gitDirectory).refs.head()
        if porcelain || !quiet || failed {
            let text = Self.summary(result, url: shown, porcelain: porcelain)
            if porcelain { try Console.writeOutput(text) } else { Console.writeError(text) }
        }
        if porcelain {
            try Console.writeOutput("Done\n")
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

    /// The ref lines git prints: updated refs first, then the rest, each in the results' order.
    static func summary(_ result: PushResult, url: String, porcelain: Bool) -> String {
        var text = ""
        let shown =
            result.refs.filter { porcelain && $0.status == .upToDate } + result.refs.filter { $0.status == .ok }
            + result.refs.filter { $0.status != .ok && $0.status != .upToDate }
        guard !shown.isEmpty else { return "" }
        text += "To \(url)\n"
        for ref in shown { text += line(ref, porcelain: porcelain) }
        return text
    }

    private static func line(_ ref: PushRefResult, porcelain: Bool) -> String {
        let (flag, summary, message, showsSource) = describe(ref)
        if porcelain {
            let names = showsSource && ref.source != nil ? "\(ref.source!):\(ref.destination)" : ":\(ref.destination)"
            return "\(flag)\t\(names)\t\(summary)\(message.map { " (\($0))" } ?? "")\n"
        }
        var text = " \(flag) \(summary.padding(toLength: 17)) "
        if showsSource, let source = ref.source {
            text += "\(pretty(source)) -> \(pretty(ref.destination))"
        } else {
            text += pretty(ref.destination)
        }
        if let message { text += " (\(message))" }
        return text + "\n"
    }

    private static func describe(_ ref: PushRefResult) -> (Character, String, String?, Bool) {
        switch ref.status {
        case .upToDate: return ("=", "[up to date]", nil, true)
        case .rejected(let why): return ("!", "[rejected]", why.rawValue, true)
        case .remoteRejected(let why): return ("!", "[remote rejected]", why, ref.new != nil)
        case .remoteFailure: return ("!", "[remote failure]", "remote failed to report status", ref.new != nil)
        case .atomicPushFailed: return ("!", "[rejected]", "atomic push failed", true)
        case .deletionNotSupported: return ("!", "[rejected]", "remote does not support deleting refs", false)
        case .ok:
            guard let new = ref.new else { return ("-", "[deleted]", nil, false) }
            guard let old = ref.old else {
                let kind =
                    ref.destination.hasPrefix("refs/tags/")
                    ? "[new tag]" : ref.destination.hasPrefix("refs/heads/") ? "[new branch]" : "[new reference]"
                return ("*", kind, nil, true)
            }
            let range = "\(old.hex.prefix(7))\(ref.forced ? "..." : "..")\(new.hex.prefix(7))"
            return (ref.forced ? "+" : " ", range, ref.forced ? "forced update" : nil, true)
        }
    }

    /// A ref name as git's `prettify_refname` shows it.
    static func pretty(_ name: String) -> String {
        for prefix in ["refs/heads/", "refs/tags/", "refs/remotes/"] where name.hasPrefix(prefix) {
            return String(name.dropFirst(prefix.count))
        }
        return name
    }

    /// git's advice after a rejection, the first reason that applies in git's order.
    static func hint(_ result: PushResult, head: HeadState?) -> String? {
        var headName: String?
        if case .symbolic(let target) = head { headName = target }
        let rejections = result.refs.compactMap { ref -> (PushRefResult.Rejection, String)? in
            if case .rejected(let why) = ref.status { (why, ref.destination) } else { nil }
        }
        let nonFastForward = rejections.filter { $0.0 == .nonFastForward }
        if nonFastForward.contains(where: { $0.1 == headName }) {
            return """
                Updates were rejected because the tip of your current branch is behind
                its remote counterpart. Integrate the remote changes (e.g.
                'git pull ...') before pushing again.
                See the 'Note about fast-forwards' in 'git push --help' for details.
                """
        }
        if !nonFastForward.isEmpty {
            return """
                Updates were rejected because a pushed branch tip is behind its remote
                counterpart. Check out this branch and integrate the remote changes
                (e.g. 'git pull ...') before pushing again.
                See the 'Note about fast-forwards' in 'git push --help' for details.
                """
        }
        if rejections.contains(where: { $0.0 == .alreadyExists }) {
            return "Updates were rejected because the tag already exists in the remote."
        }
        if rejections.contains(where: { $0.0 == .fetchFirst }) {
            return """
                Updates were rejected because the remote contains work that you do
                not have locally. This is usually caused by another repository pushing
                to the same ref. You may want to first integrate the remote changes
                (e.g., 'git pull ...') before pushing again.
                See the 'Note about fast-forwards' in 'git push --help' for details.
                """
        }
        if rejections.contains(where: { $0.0 == .needsForce }) {
            return """
                You cannot update a remote ref that points at a non-commit object,
                or update a remote ref to make it point at a non-commit object,
                without using the '--force' option.
                """
        }
        return nil
    }
}
