/// Turns a remote's address into connections to a git service. Implementations: git://
/// (``GitDaemonTransport``), local paths and file:// (``LocalTransport``), and the recording and
/// replaying transports of GitWireReplay.
public protocol Transport: Sendable {
    /// A short name for the transport, such as `git`, `file` or `replay`.
    var name: String { get }

    /// Opens a blocking connection to `request`'s service. `timeout` bounds the connect and every
    /// wait for data.
    func connect(_ request: ServiceRequest, timeout: Duration?) throws -> any BlockingConnection

    /// Opens a connection driven by `loop`. Its events go to the handler given to
    /// ``LoopConnection/start(handler:)``.
    func connect(_ request: ServiceRequest, timeout: Duration?, in loop: EpollRunLoop) throws -> any LoopConnection
}

/// A connection whose calls block.
public protocol BlockingConnection: AnyObject {
    /// Packets the transport itself must send first (the git:// request line).
    var greeting: [PktLine] { get }
    /// Sends all of `bytes`.
    func send(_ bytes: [UInt8]) throws
    /// Waits for the next bytes from the service; empty when it closed the connection.
    func receive() throws -> [UInt8]
    /// Closes the connection (and reaps a child process). Safe to call twice.
    func close()
}

/// A connection driven by a run loop. Calls and events happen on the loop's thread.
public protocol LoopConnection: AnyObject {
    /// Packets the transport itself must send first (the git:// request line).
    var greeting: [PktLine] { get }
    /// Starts connecting; from now on `handler` hears what happens. Held until close.
    func start(handler: any LoopConnectionHandler)
    /// Queues `bytes` to send, in order; they leave once the connection is open.
    func send(_ bytes: [UInt8])
    /// Closes the connection; no more events. Safe to call twice.
    func close()
}

/// Hears what happens on a ``LoopConnection``.
public protocol LoopConnectionHandler: AnyObject {
    /// Bytes arrived.
    func connection(_ connection: any LoopConnection, didReceive bytes: [UInt8])
    /// The service closed the connection.
    func connectionDidEnd(_ connection: any LoopConnection)
    /// The connection failed.
    func connection(_ connection: any LoopConnection, didFail error: any Error)
}
