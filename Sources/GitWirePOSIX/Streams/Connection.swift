import GitWireCore

/// One connection to a git service, driven by a run loop: bytes out through ``send(_:)``, bytes
/// in, the end and failures through a ``ConnectionHandler``. Every call and every event happens
/// on the loop's thread.
///
/// The `git://`, ssh and local transports' connections are the loop-driven descriptor channel
/// itself (the one the byte streams are a face over): what it reads reaches the handler in the
/// same loop callback, with no stream or delegate in between.
public protocol Connection: AnyObject {
    /// Packets the transport itself sends first, before the exchange's own (the git:// request
    /// line); empty for most transports.
    var greeting: [PktLine] { get }
    /// Starts connecting; from now on `handler` hears what happens. Held until ``close()``.
    func start(handler: any ConnectionHandler)
    /// Queues `bytes` to send, in order; they leave once the connection is open. Each call is one
    /// request on a transport whose connections do not persist.
    func send(_ bytes: [UInt8])
    /// Closes the connection; no more events reach the handler. Bytes already queued still go
    /// out. A child process behind the connection is reaped. Safe to call twice.
    func close()
    /// Bytes queued by ``send(_:)`` and not yet written: a writer streaming a large body (a
    /// push's pack) sends more only while this is small. 0 by default (everything leaves at once
    /// as far as the caller can tell).
    var queuedByteCount: Int { get }
    /// The last lines the program behind the connection (ssh, `git-upload-pack`) wrote on its
    /// standard error, for the error that explains a failure (see GitWire's `RemoteProgramError`); empty
    /// by default. A connection that wraps another passes the other's on.
    var standardErrorLines: [String] { get }
}

extension Connection {
    /// Nothing is ever seen as queued.
    public var queuedByteCount: Int { 0 }
}

/// A ``ConnectionHandler`` that also wants to see the HTTP requests and response status lines
/// of an HTTP connection (recording does). Lines carry no credentials.
public protocol HTTPConnectionObserver: AnyObject {
    /// The connection is about to send `line`: `METHOD /path?query` and the git headers sent
    /// (`git-protocol=…`, `content-encoding=gzip`).
    func connection(_ connection: any Connection, willSendHTTPRequest line: String)
    /// The connection got the answer's status: `STATUS content-type`.
    func connection(_ connection: any Connection, didReceiveHTTPResponse line: String)
}

/// Hears what happens on a ``Connection``, on its run loop's thread.
public protocol ConnectionHandler: AnyObject {
    /// The connection is open: connected, or the process started. Waits for data are timed from
    /// here; the connect has its own timeout.
    func connectionDidOpen(_ connection: any Connection)
    /// Bytes arrived.
    func connection(_ connection: any Connection, didReceive bytes: [UInt8])
    /// The service closed the connection.
    func connectionDidEnd(_ connection: any Connection)
    /// The connection failed: it could not be made, broke, or timed out while connecting.
    func connection(_ connection: any Connection, didFail error: any Error)
    /// Everything queued has been written (the peer is taking what is sent). Optional.
    func connectionDidDrain(_ connection: any Connection)
}

extension ConnectionHandler {
    /// Ignored by default.
    public func connectionDidDrain(_ connection: any Connection) {}
}

extension Connection {
    /// None: the connection has no program behind it.
    public var standardErrorLines: [String] { [] }
}
