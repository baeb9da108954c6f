/// A conversation with a git service as a pure state machine: it says what to send and takes
/// what comes back, one packet at a time, with no I/O. One engine runs any exchange over any
/// transport, blocking, on a run loop, or with Swift concurrency.
///
/// An exchange sees the connection as one stream of pkt-lines each way. On a transport whose
/// connection ends after each request (smart HTTP's stateless RPC), each batch of packets the
/// exchange sends becomes one request and the answers are joined into the stream it reads; the
/// exchange learns which kind it is talking over from ``ExchangeContext`` and writes its requests
/// so that each stands on its own there.
public protocol Exchange {
    /// What the exchange hands out while it runs (refs, pack data).
    associatedtype Element
    /// What the exchange ends with.
    associatedtype Output

    /// What is being done now, for error and timeout messages ("reading the ref advertisement").
    var activity: String { get }

    /// Packets to send before anything is read (empty for services that speak first).
    mutating func start(_ context: ExchangeContext) throws -> [PktLine]

    /// Handles one packet from the server; elements go to `emit`.
    mutating func receive(_ packet: PktLine, emit: (Element) -> Void) throws -> ExchangeStep<Output>

    /// Handles one packet as the decoder hands it out, its payload a view of the bytes received
    /// (what ``ExchangeCodec`` calls). By default the payload is copied into a ``PktLine`` for
    /// ``receive(_:emit:)``; an exchange that passes large payloads on (a pack) takes the view.
    mutating func receive(view packet: PktLineView, emit: (Element) -> Void) throws -> ExchangeStep<Output>

    /// The server closed the connection. Returns the output if that is a proper end, else throws.
    mutating func receiveEnd(emit: (Element) -> Void) throws -> Output

    /// Whether what follows is not pkt-lines but raw bytes up to the end of the connection (a
    /// pack sent without side-band): the codec then hands every byte to
    /// ``receive(raw:emit:)``. False by default.
    var readsRawBytes: Bool { get }

    /// Takes raw bytes, once ``readsRawBytes`` is true. By default a ``ProtocolError``.
    mutating func receive(raw bytes: ArraySlice<UInt8>, emit: (Element) -> Void) throws -> ExchangeStep<Output>
}

extension Exchange {
    /// Pkt-lines to the end.
    public var readsRawBytes: Bool { false }

    /// Copies the payload out and hands the packet to ``receive(_:emit:)``.
    public mutating func receive(view packet: PktLineView, emit: (Element) -> Void) throws -> ExchangeStep<Output> {
        try receive(packet.line, emit: emit)
    }

    /// Refuses raw bytes.
    public mutating func receive(raw bytes: ArraySlice<UInt8>, emit: (Element) -> Void) throws -> ExchangeStep<Output> {
        throw ProtocolError("unexpected bytes that are not pkt-lines")
    }
}

/// What an ``Exchange`` needs to know about the connection it runs over.
public struct ExchangeContext: Hashable, Sendable {
    /// Whether one connection carries the whole conversation (git://, ssh, local pipes). When
    /// false, every request is a round trip of its own (smart HTTP's stateless RPC): the server
    /// keeps no state between requests, and nothing is sent to end the conversation.
    public var connectionPersists: Bool

    /// A context for a connection that persists or not.
    public init(connectionPersists: Bool = true) { self.connectionPersists = connectionPersists }
}

/// What an ``Exchange`` wants next.
public enum ExchangeStep<Output> {
    /// Keep reading.
    case readMore
    /// Send these packets (in one write), then keep reading.
    case send([PktLine])
    /// Done: send `farewell` (may be empty) and close.
    case finish(Output, farewell: [PktLine])
}
