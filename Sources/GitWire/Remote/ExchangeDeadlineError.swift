/// An exchange ran past its deadline (``Remote/deadline``): the whole of it, from the start of
/// the connect to the last byte, took longer, however steadily data arrived.
public struct ExchangeDeadlineError: GitWireError, Hashable, Sendable {
    /// What kind of failure this is: ``GitWireErrorKind/timedOut``.
    public var kind: GitWireErrorKind { .timedOut }
    /// The deadline that passed.
    public let after: Duration
    /// What was being done, such as "reading the ref advertisement" or "connecting".
    public let activity: String

    /// Makes the error.
    public init(after: Duration, activity: String) {
        self.after = after
        self.activity = activity
    }

    /// The text shown to users and in logs.
    public var description: String { "timed out after \(formatSeconds(after)) (deadline) \(activity)" }
}
