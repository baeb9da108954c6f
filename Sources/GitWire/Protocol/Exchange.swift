/// A conversation with a git service as a pure state machine: it says what to send and takes
/// what comes back, one packet at a time, with no I/O. One engine runs any exchange over any
/// transport, blocking, on a run loop, or with Swift concurrency.
public protocol Exchange {
    /// What the exchange hands out while it runs (refs, pack data).
    associatedtype Element
    /// What the exchange ends with.
    associatedtype Output

    /// What is being done now, for error and timeout messages ("reading the ref advertisement").
    var activity: String { get }

    /// Packets to send before anything is read (empty for services that speak first).
    mutating func start() throws -> [PktLine]

    /// Handles one packet from the server; elements go to `emit`.
    mutating func receive(_ packet: PktLine, emit: (Element) -> Void) throws -> ExchangeStep<Output>

    /// The server closed the connection. Returns the output if that is a proper end, else throws.
    mutating func receiveEnd(emit: (Element) -> Void) throws -> Output
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

/// The connection ended before the exchange was complete.
public struct UnexpectedEndError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Whether the server had sent anything at all.
    public let afterInitialContact: Bool

    /// Makes the error.
    public init(afterInitialContact: Bool) { self.afterInitialContact = afterInitialContact }

    public var description: String {
        if afterInitialContact { return "the remote end hung up upon initial contact" }
        return "Could not read from remote repository.\n\n"
            + "Please make sure you have the correct access rights\nand the repository exists."
    }
}
