import GitWireCore

/// Data hashed with ``SHA1`` carries a SHA-1 collision attack: one of its blocks completes a
/// collision built on a known disturbance vector. git refuses such data with the same message.
public struct SHA1CollisionError: GitWireError, Equatable, Sendable {
    /// What kind of failure this is: ``GitWireErrorKind/pack`` (the data is not to be trusted).
    public var kind: GitWireErrorKind { .pack }

    /// The digest computed instead of the attacked one (git's "safe hash": the attack block
    /// compressed twice more), which git prints in its message.
    public let safeHash: ObjectID

    /// Makes the error for data whose safe hash is `safeHash`.
    public init(safeHash: ObjectID) { self.safeHash = safeHash }

    /// The text shown to users and in logs, as git words it.
    public var description: String { "SHA-1 appears to be part of a collision attack: \(safeHash.hex)" }
}
