/// git:// — a TCP connection to `git daemon` (port 9418 unless the URL says otherwise), opened
/// with the request line `git-upload-pack /path\0host=HOST\0` (plus `\0version=N\0` for v1, v2).
public struct GitDaemonTransport: Transport {
    /// The host to connect to.
    public let host: String
    /// The TCP port.
    public let port: Int
    /// The `host=` value of the request line: the URL's host as written, with its port if given.
    public let hostHeader: String

    public var name: String { "git" }

    /// A transport to `host` and `port`; `hostHeader` defaults to the host, plus `:port` when the
    /// port is not 9418.
    public init(host: String, port: Int = 9418, hostHeader: String? = nil) {
        self.host = host
        self.port = port
        let bracketed = host.contains(":") ? "[\(host)]" : host
        self.hostHeader = hostHeader ?? (port == 9418 ? bracketed : "\(bracketed):\(port)")
    }

    public func connect(_ request: ServiceRequest, timeout: Duration?) throws -> any BlockingConnection {
        let pair = ByteStreamPair.connecting(toHost: host, port: port, connectTimeout: timeout)
        try pair.open()
        return StreamBlockingConnection(
            pair: pair, process: nil, greeting: [request.daemonRequest(host: hostHeader)], timeout: timeout)
    }

    public func connect(
        _ request: ServiceRequest, timeout: Duration?, in loop: EpollRunLoop
    ) throws -> any LoopConnection {
        let pair = ByteStreamPair.connecting(toHost: host, port: port, connectTimeout: timeout)
        return StreamLoopConnection(
            pair: pair, process: nil, greeting: [request.daemonRequest(host: hostHeader)], loop: loop)
    }
}
