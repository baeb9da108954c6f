import GitWire
import GitWireReplay

/// `gitwire ls-remote`: lists a remote's refs, printing exactly what `git ls-remote` prints.
struct LsRemoteCommand: Subcommand {
    static let name = "ls-remote"
    static let abstract = "List references in a remote repository, as git ls-remote does."
    static let discussion = """
        Output is byte-identical to `git -c protocol.version=N ls-remote` with the same options \
        and patterns. Exit status: 0, 2 with --exit-code when nothing matched, 128 on errors, 129 \
        on a mistake in the command line.

        With --batch <file> (`-`: standard input), every URL in the file (one a line; blank \
        lines and lines starting with `#` skipped) is listed, up to --jobs at a time (and up \
        to --jobs-per-host with any one server) on one thread, and all arguments are patterns. \
        Each remote prints a block: `# <url>`, the lines plain ls-remote prints for it, an empty \
        line; a remote that failed prints `error: <message>` in place of its refs. With --json, \
        one JSON object per line: {"url", "refs": [{"name", "oid", "peeled", "symref"}]} or \
        {"url", "error": {"kind", "message"}}. Blocks come in input order (a finished remote \
        waits only for earlier ones), or as remotes finish with --completion-order. Each remote \
        must be listed within --deadline seconds (default 60) from the start of its connect to \
        its last byte, however steadily its server sends; --timeout bounds each wait for data \
        as well. A line of over 65536 bytes is an error for that line. Exit status: \
        0 when every remote was listed, 1 when any failed, 128 when the list could not be read \
        or the options are wrong.
        """

    static var options: [CommandOption<Self>] {
        [
            .flag("h", "heads", \.heads, help: "Limit to refs/heads (branches)."),
            .flag("t", "tags", \.tags, help: "Limit to refs/tags."),
            .flag(nil, "refs", \.refs, help: "Do not show peeled tags or pseudorefs like HEAD."),
            .flag(nil, "symref", \.symref, help: "Show the ref each symbolic ref points to."),
            .flag("q", "quiet", \.quiet, help: "Do not print the remote URL to standard error."),
            .flag(nil, "exit-code", \.exitCode, help: "Exit with status 2 when no matching refs are found."),
            .flag(nil, "get-url", \.getURL, help: "Print the URL of the repository and exit."),
            .values(
                "o", "server-option", valueName: "server-option", \.serverOptions,
                help: "Send a protocol v2 server option."),
        ] + RemoteArguments.options(at: \.connection) + [
            .value(
                nil, "batch", valueName: "file", \.batch,
                help: "List every repository URL in this file ('-': standard input)."),
            .value(
                "j", "jobs", valueName: "n", \.jobs,
                help:
                    "With --batch: how many remotes to list at once, 1 to 1024 (default: as many as the descriptor limit allows, at most 1024)."
            ),
            .value(
                nil, "jobs-per-host", valueName: "n", \.jobsPerHost,
                help:
                    "With --batch: how many of the jobs may talk to one server (host and port; all local repositories count as one) at once, 1 to 1024 (default 6)."
            ),
            .value(
                nil, "deadline", valueName: "seconds", \.deadline,
                help:
                    "With --batch: the most one remote may take in all, connect to last byte (default 60; 0: no deadline)."
            ),
            .flag(nil, "json", \.json, help: "With --batch: print one JSON object per remote and line."),
            .flag(
                nil, "completion-order", \.completionOrder,
                help: "With --batch: print each remote as soon as it is listed, not in input order."),
        ]
    }

    static var arguments: [CommandArgument<Self>] {
        [
            .optional(
                "repository", \.repository,
                help:
                    "The remote repository: a remote's name, a URL or a path (default: the current branch's remote, or origin; with --batch, a pattern like the others)."
            ),
            .repeating(
                "patterns", \.patterns, help: "Show only refs whose names end with a match of one of these patterns."),
        ]
    }

    var heads = false
    var tags = false
    var refs = false
    var symref = false
    var quiet = false
    var exitCode = false
    var getURL = false
    var serverOptions: [String] = []
    var connection = RemoteArguments()
    var batch: String?
    var jobs: String?
    var jobsPerHost: String?
    var deadline: String?
    var json = false
    var completionOrder = false
    var repository: String?
    var patterns: [String] = []

    func execute() throws -> Int32 {
        if let batch { return try listBatch(batch) }
        for (set, name) in [
            (jobs != nil, "--jobs"), (jobsPerHost != nil, "--jobs-per-host"), (deadline != nil, "--deadline"),
            (json, "--json"),
            (completionOrder, "--completion-order"),
        ] where set {
            throw ValidationError("\(name) needs --batch")
        }
        let configuration = try CommandConfiguration.load()
        // As git: a remote's name, or a URL; with neither, the current branch's remote or origin.
        let target = try repository ?? CommandConfiguration.defaultRemoteName(configuration)
        let configuredURL = try configuration.remoteURLs(named: target)?.urls.first
        guard repository != nil || configuredURL != nil else {
            throw ValidationError("No remote configured to list refs from.")
        }
        let url = try configuredURL ?? configuration.rewrittenURL(target)
        if getURL {
            // Without user information: a password never reaches any output (git prints it).
            try Console.writeOutput(RemoteURL.withoutCredentials(url) + "\n")
            return 0
        }
        if repository == nil && !quiet { Console.writeError("From \(RemoteURL.withoutCredentials(url))\n") }
        let version = try connection.version()
        let (remote, recording) = try connection.remote(target)
        let filter = RefFilter(heads: heads, tags: tags, refsOnly: refs, patterns: patterns)
        let options = LsRemoteOptions(
            protocolVersion: version, refPrefixes: filter.refPrefixes, serverOptions: serverOptions,
            agent: FetchArguments.userAgent)
        // Each ref is formatted as it arrives, while the server is still sending the rest; the
        // whole is printed at the end, as git prints it.
        var output: [UInt8] = []
        let listing = try recording.saving {
            try remote.runBlocking(
                LsRemoteExchange(options: options), protocolVersion: version, traceIdentity: "ls-remote",
                onElement: { LsRemoteOutput.append($0, filter: filter, showSymrefs: symref, to: &output) })
        }
        for warning in listing.warnings { Console.writeError("warning: \(maskedForTerminal(warning))\n") }
        try Console.writeOutput(output)
        return exitCode && output.isEmpty ? 2 : 0
    }
}
