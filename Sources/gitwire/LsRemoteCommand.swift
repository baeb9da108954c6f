import ArgumentParser
import GitWire
import GitWireReplay

/// `gitwire ls-remote`: lists a remote's refs, printing exactly what `git ls-remote` prints.
struct LsRemoteCommand: GitStyleCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls-remote",
        abstract: "List references in a remote repository, as git ls-remote does.",
        discussion: """
            Output is byte-identical to `git -c protocol.version=N ls-remote` with the same options \
            and patterns. Exit status: 0, 2 with --exit-code when nothing matched, 128 on errors.

            With --batch <file> (`-`: standard input), every URL in the file (one a line; blank \
            lines and lines starting with `#` skipped) is listed, up to --jobs at a time (and up \
            to --jobs-per-host with any one server) on one thread, and all arguments are patterns. Each remote prints a block: `# <url>`, the \
            lines plain ls-remote prints for it, an empty line; a remote that failed prints \
            `error: <message>` in place of its refs. With --json, one JSON object per line: \
            {"url", "refs": [{"name", "oid", "peeled", "symref"}]} or {"url", "error": {"kind", \
            "message"}}. Blocks come in input order (a finished remote waits only for earlier \
            ones), or as remotes finish with --completion-order. Exit status: 0 when every remote \
            was listed, 1 when any failed, 128 when the list could not be read or the options are \
            wrong.
            """)

    @Flag(name: [.customShort("h"), .long], help: "Limit to refs/heads (branches).")
    var heads = false

    @Flag(name: [.customShort("t"), .long], help: "Limit to refs/tags.")
    var tags = false

    @Flag(name: .long, help: "Do not show peeled tags or pseudorefs like HEAD.")
    var refs = false

    @Flag(name: .long, help: "Show the ref each symbolic ref points to.")
    var symref = false

    @Flag(name: [.customShort("q"), .long], help: "Do not print the remote URL to standard error.")
    var quiet = false

    @Flag(name: .long, help: "Exit with status 2 when no matching refs are found.")
    var exitCode = false

    @Flag(name: .long, help: "Print the URL of the repository and exit.")
    var getURL = false

    @Option(name: [.customShort("o"), .customLong("server-option")], help: "Send a protocol v2 server option.")
    var serverOptions: [String] = []

    @Option(name: .long, help: "Protocol version to ask for: 0, 1 or 2 (default 2).")
    var protocolVersion = 2

    @Option(name: .long, help: "Seconds to wait for the connection and for each read (default: no limit).")
    var timeout: String?

    @Option(
        name: .customLong("upload-pack"),
        help:
            "The command serving git-upload-pack on a local remote, run as git runs it (the quoted path appended, through the shell when needed)."
    )
    var uploadPack: String?

    @Option(help: "Record the whole session (every byte both ways) to this fixture file.")
    var record: String?

    @Option(
        name: .long,
        help: ArgumentHelp("List every repository URL in this file ('-': standard input).", valueName: "file"))
    var batch: String?

    @Option(
        name: [.customShort("j"), .long],
        help: "With --batch: how many remotes to list at once, 1 to 1024 (default 64).")
    var jobs: String?

    @Option(
        name: .long,
        help:
            "With --batch: how many of the jobs may talk to one server (host and port) at once, 1 to 1024 (default 6).")
    var jobsPerHost: String?

    @Flag(name: .long, help: "With --batch: print one JSON object per remote and line.")
    var json = false

    @Flag(name: .long, help: "With --batch: print each remote as soon as it is listed, not in input order.")
    var completionOrder = false

    @Argument(help: "The remote repository: a URL or a path (with --batch, a pattern like the others).")
    var repository: String?

    @Argument(help: "Show only refs whose names end with a match of one of these patterns.")
    var patterns: [String] = []

    func validate() throws {
        if batch == nil && repository == nil { throw ValidationError("Missing expected argument '<repository>'") }
    }

    func execute() throws -> Int32 {
        if let batch { return try listBatch(batch) }
        for (set, name) in [
            (jobs != nil, "--jobs"), (jobsPerHost != nil, "--jobs-per-host"), (json, "--json"),
            (completionOrder, "--completion-order"),
        ] where set {
            throw ValidationError("\(name) needs --batch")
        }
        guard let repository else { throw ValidationError("Missing expected argument '<repository>'") }
        if getURL {
            try Console.writeOutput(repository + "\n")
            return 0
        }
        guard let version = ProtocolVersion(rawValue: protocolVersion) else {
            throw ValidationError("unknown protocol version \(protocolVersion)")
        }
        var remote = try Remote(repository, timeout: try parseTimeout(timeout))
        remote.showWarningsOnStandardError()
        if let uploadPack {
            guard remote.url.scheme == .file else { throw ValidationError("--upload-pack works with local remotes") }
            remote.transport = LocalTransport(uploadPack: uploadPack)
        }
        let filter = RefFilter(heads: heads, tags: tags, refsOnly: refs, patterns: patterns)
        let options = LsRemoteOptions(
            protocolVersion: version, refPrefixes: filter.refPrefixes, serverOptions: serverOptions)
        let recording = record.map { SessionRecording(path: $0, remote: &remote) }
        let listing = try recording.saving { try remote.lsRemote(options) }
        for warning in listing.warnings { Console.writeError("warning: \(maskedForTerminal(warning))\n") }
        let output = LsRemoteOutput.format(listing.refs, filter: filter, showSymrefs: symref)
        try Console.writeOutput(output)
        return exitCode && output.isEmpty ? 2 : 0
    }
}
