/// The operation was cancelled.
public struct CancelledError: GitWireError, Hashable, Sendable {
    /// What kind of failure this is: ``GitWireErrorKind/cancelled``.
    public var kind: GitWireErrorKind { .cancelled }

    /// Makes the error.
    public init() {}

    /// The text shown to users and in logs.
    public var description: String { "cancelled" }
}
