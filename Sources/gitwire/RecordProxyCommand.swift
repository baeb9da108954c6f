import GitWire
import GitWireReplay

/// `gitwire record-proxy`: a git:// proxy that records each connection as a fixture.
struct RecordProxyCommand: Subcommand {
    static let name = "record-proxy"
    static let abstract = "Forward git:// or smart HTTP connections upstream, recording each as a fixture."
    static let discussion = """
        Point any client at the proxy (git://HOST:PORT/repo, or http://HOST:PORT/repo with an \
        http(s):// upstream) and it records the whole session into <out>/connection-NNN.session: \
        byte for byte for git://; for HTTP each request and status line, the request bodies and \
        the answers as pkt-lines, never credentials. It stops after --connections sessions, \
        after --idle-timeout seconds without a connection, or on SIGINT/SIGTERM. Needs --listen, \
        --upstream and --out. A session may record at most --max-session-size MiB (default 256, \
        compressed bodies counted as decoded): a connection that goes past it is closed, its \
        fixture not written, and the command fails.
        """

    static var options: [CommandOption<Self>] {
        [
            .value(
                nil, "listen", valueName: "host:port", \.listen,
                help: "Where to listen, HOST:PORT (IPv6 as [::1]:PORT)."),
            .value(
                nil, "upstream", valueName: "url", \.upstream,
                help:
                    "Where to forward: a git daemon, git://HOST[:PORT], or a smart HTTP server, http(s)://HOST[:PORT]."),
            .value(nil, "out", valueName: "directory", \.out, help: "Directory for the fixtures."),
            .integer(
                nil, "connections", valueName: "n", \.connections,
                help: "Stop after recording this many connections (at least 1)."),
            .value(
                nil, "idle-timeout", valueName: "seconds", \.idleTimeout,
                help: "Stop after this many seconds without any connection open (default 300)."),
            .integer(
                nil, "max-session-size", valueName: "MiB", \.maxSessionSize,
                help: "The most one session may record, in MiB (default 256); a larger one fails."),
        ]
    }

    static var arguments: [CommandArgument<Self>] {
        []
    }

    var listen: String?
    var upstream: String?
    var out: String?
    var connections: Int?
    var idleTimeout = "300"
    var maxSessionSize: Int?

    func validate() throws {
        for (value, name) in [(listen, "--listen"), (upstream, "--upstream"), (out, "--out")] where value == nil {
            throw CommandLineError("missing \(name)")
        }
    }

    func execute() throws -> Int32 {
        guard let listen, let upstream, let out else { return 129 }
        let (host, port) = try parseHostAndPort(listen)
        let idle = try parseSeconds(idleTimeout, option: "--idle-timeout")
        if let connections, connections < 1 {
            throw ValidationError("--connections takes a positive number, not \(connections)")
        }
        let limit = maxSessionSize.map { $0 << 20 } ?? HTTPRecordingProxy.defaultRecordingLimit
        if let maxSessionSize, !(1...(1 << 20)).contains(maxSessionSize) {
            throw ValidationError("--max-session-size takes a number of MiB from 1 to 1048576, not \(maxSessionSize)")
        }
        let upstreamURL = try RemoteURL(upstream.hasSuffix("/") ? upstream : upstream + "/")
        let loop = try EpollRunLoop()
        let proxy: any SessionRecordingProxy
        switch upstreamURL.scheme {
        case .git:
            guard let upstreamHost = upstreamURL.host else { throw ValidationError("--upstream has no host") }
            proxy = try RecordingProxy(
                listenHost: host, listenPort: port, upstreamHost: upstreamHost,
                upstreamPort: upstreamURL.port ?? 9418, outputDirectory: out, loop: loop, recordingLimit: limit)
        case .http, .https:
            proxy = try HTTPRecordingProxy(
                listenHost: host, listenPort: port, upstream: upstream, outputDirectory: out, loop: loop,
                recordingLimit: limit)
        default:
            throw ValidationError("--upstream must be a git://, http:// or https:// URL")
        }
        Console.writeError(
            "record-proxy: listening on \(proxy.address), forwarding to \(RemoteURL.withoutCredentials(upstream))\n")
        var finished = 0
        var failure: (any Error)?
        var lastActivity = ContinuousClock.now
        proxy.onFinishedConnection = { result in
            lastActivity = .now
            switch result {
            case .success(let path): Console.writeError("record-proxy: wrote \(path)\n")
            case .failure(let error): failure = error
            }
            finished += 1
            if let connections, finished >= connections { loop.stop() }
        }
        let idleCheck = loop.addTimer(after: .milliseconds(100), repeating: .milliseconds(100)) { _ in
            if proxy.openConnectionCount > 0 { lastActivity = .now }
            if ContinuousClock.now - lastActivity > idle { loop.stop() }
        }
        loop.run()
        proxy.close()
        // What a closed connection still owes a slow client (its last bytes, flushed for at most
        // five seconds) goes out before the process ends.
        idleCheck.invalidate()
        loop.run(until: .now + .seconds(6))
        if let failure { throw failure }
        return 0
    }

    /// The host and port of `--listen`: a port from 0 (any free port) to 65535, in decimal.
    private func parseHostAndPort(_ text: String) throws -> (String, Int) {
        guard let colon = text.lastIndex(of: ":") else { throw ValidationError("--listen takes HOST:PORT") }
        let portText = text[text.index(after: colon)...]
        guard !portText.isEmpty, portText.allSatisfy(\.isASCII), portText.allSatisfy(\.isNumber),
            let port = Int(portText), port <= 65535
        else {
            throw ValidationError("invalid port number '\(portText)' in --listen \(text)")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host, port)
    }
}
