/// The connection broke (reset or closed under a write) in the middle of an exchange.
public struct ConnectionLostError: GitWireError, Sendable {
    /// What kind of failure this is: ``GitWireErrorKind/connectionLost``.
    public var kind: GitWireErrorKind { .connectionLost }

    /// What the exchange was doing.
    public let activity: String
    /// The system error.
    public let reason: SystemCallError

    /// The text shown to users and in logs.
    public var description: String { "connection lost while \(activity): \(reason.errno)" }
}
