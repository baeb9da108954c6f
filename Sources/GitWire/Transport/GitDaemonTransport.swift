/// git:// — a TCP connection to `git daemon` (port 9418 unless the URL says otherwise), opened
/// with the request line `git-upload-pack /path\0host=HOST\0` (plus `\0version=N\0` for v1, v2).
public struct GitDaemonTransport: Transport {
    /// The host to connect to.
    public let host: String
    /// The TCP port.
    public let port: Int
    /// The `host=` value of the request line: the URL's host as written, with its port if given.
    public let hostHeader: String

    /// Resolves ``host`` off the run loop's thread.
    public let resolver: any HostResolver

    /// Always ``RemoteURL/Scheme/git``.
    public var scheme: RemoteURL.Scheme { .git }

    /// A transport to `host` and `port`; `hostHeader` defaults to the host, plus `:port` when the
    /// port is not 9418. `resolver` looks the host up (the system's resolver unless given).
    public init(
        host: String, port: Int = 9418, hostHeader: String? = nil, resolver: any HostResolver = SystemResolver()
    ) {
        self.host = host
        self.port = port
        self.resolver = resolver
        let bracketed = host.contains(":") ? "[\(host)]" : host
        self.hostHeader = hostHeader ?? (port == 9418 ? bracketed : "\(bracketed):\(port)")
    }

    /// Opens a TCP connection (the host looked up off the loop) that sends the request line first.
    /// A host or path with a newline is refused first, as git refuses it
    /// (``DaemonRequestNewlineError``).
    public func connect(
        _ request: ServiceRequest, timeout: Duration?, in loop: EpollRunLoop
    ) throws -> any Connection {
        guard !host.utf8.contains(0x0a), !hostHeader.utf8.contains(0x0a), !request.path.utf8.contains(0x0a) else {
            throw DaemonRequestNewlineError()
        }
        return StreamChannel.connection(
            toHost: host, port: port, connectTimeout: timeout, resolver: resolver,
            greeting: [request.daemonRequest(host: hostHeader)], loop: loop)
    }
}
