/// Turns a remote's address into connections to a git service, driven by a run loop.
///
/// Implementations: git:// (``GitDaemonTransport``), local paths and file:// (``LocalTransport``),
/// ssh (``SSHTransport``), smart HTTP(S) (``HTTPTransport``), and the recording and replaying
/// transports of GitWireReplay, which wrap another transport's connections. Every operation (blocking, run loop, `async`) runs over the one
/// ``Connection`` a transport returns; the blocking forms run a private ``EpollRunLoop``.
public protocol Transport: Sendable {
    /// Which kind of remote this transport reaches (`git`, `file`, ...). Recordings keep it, and
    /// a replay serves what the recorded kind's connections carry.
    var scheme: RemoteURL.Scheme { get }

    /// Whether one connection carries a whole conversation (git://, ssh, local pipes: true) or
    /// every request is a round trip of its own (smart HTTP's stateless RPC: false). Exchanges
    /// learn it through ``ExchangeContext``.
    var connectionPersists: Bool { get }

    /// Opens a connection to `request`'s service, driven by `loop`. Nothing happens until
    /// ``Connection/start(handler:)``; `timeout` bounds the connect (host lookup included).
    func connect(_ request: ServiceRequest, timeout: Duration?, in loop: EpollRunLoop) throws -> any Connection
}

extension Transport {
    /// Connections persist unless a transport says otherwise.
    public var connectionPersists: Bool { true }
}
