import GitWireCore

/// A stream operation took longer than its timeout.
public struct StreamTimeoutError: GitWireError, Sendable {
    /// What kind of failure this is: ``GitWireErrorKind/timedOut``.
    public var kind: GitWireErrorKind { .timedOut }

    /// The timeout that passed.
    public let after: Duration
    /// What was being done, such as "reading the ref advertisement".
    public var activity: String

    /// Makes a timeout error.
    public init(after: Duration, activity: String) {
        self.after = after
        self.activity = activity
    }

    /// The text shown to users and in logs.
    public var description: String { "timed out after \(formatSeconds(after)) \(activity)" }
}
