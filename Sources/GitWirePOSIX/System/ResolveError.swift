import GitWireCore
import Glibc

/// A host name could not be resolved.
public struct ResolveError: GitWireError, Sendable {
    /// What kind of failure this is: ``GitWireErrorKind/connect``.
    public var kind: GitWireErrorKind { .connect }

    /// The host that was looked up.
    public let host: String
    /// The port that was looked up.
    public let port: Int
    /// The resolver's reason.
    public let reason: String

    /// The text shown to users and in logs.
    public var description: String { "unable to look up \(host) (port \(port)) (\(reason))" }
}
