import GitWireCore

/// No address of a host accepted a connection.
public struct ConnectError: GitWireError, Sendable {
    /// What kind of failure this is: ``GitWireErrorKind/connect``.
    public var kind: GitWireErrorKind { .connect }

    /// The host name.
    public let host: String
    /// The port.
    public let port: Int
    /// Each address tried, with the error number its connect failed with.
    package let failures: [(address: SocketAddress, errno: Errno)]

    /// Makes the error for `host` and `port` from what each address tried failed with.
    package init(host: String, port: Int, failures: [(address: SocketAddress, errno: Errno)]) {
        self.host = host
        self.port = port
        self.failures = failures
    }

    /// Whether every address refused the connection (`ECONNREFUSED`), whatever the locale.
    public var isRefused: Bool { !failures.isEmpty && failures.allSatisfy { $0.errno == .connectionRefused } }

    /// `unable to connect to HOST port PORT: ADDRESS: REASON; ...`.
    public var description: String {
        let reasons = failures.map { "\($0.address): \($0.errno)" }.joined(separator: "; ")
        return "unable to connect to \(host) port \(port): \(failures.isEmpty ? "no address" : reasons)"
    }
}
