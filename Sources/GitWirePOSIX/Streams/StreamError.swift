import GitWireCore

/// A stream was used in a way its state does not allow, or ended early.
public enum StreamError: GitWireError, Sendable, Hashable {
    /// What kind of failure this is: ``GitWireErrorKind/system``.
    public var kind: GitWireErrorKind { .system }

    /// The stream was closed by its owner.
    case closed
    /// The stream has not been opened.
    case notOpen
    /// A blocking call was made on a stream scheduled in a run loop.
    case scheduled
    /// The input ended after `received` of the `expected` bytes.
    case unexpectedEnd(received: Int, expected: Int)

    /// The text shown to users and in logs.
    public var description: String {
        switch self {
        case .closed: return "stream is closed"
        case .notOpen: return "stream is not open"
        case .scheduled: return "blocking call on a stream scheduled in a run loop"
        case .unexpectedEnd(let received, let expected):
            return "unexpected end of stream after \(received) of \(expected) bytes"
        }
    }
}
