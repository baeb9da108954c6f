/// A git:// URL whose host or repository path holds a newline: git refuses it before it connects
/// (`newline is forbidden in git:// hosts and repo paths`), since `git daemon` reads its request
/// line by line and the rest would reach it as a request of its own.
public struct DaemonRequestNewlineError: GitWireError, Hashable, Sendable {
    /// What kind of failure this is: ``GitWireErrorKind/usage``.
    public var kind: GitWireErrorKind { .usage }

    /// git's message.
    public var description: String { "newline is forbidden in git:// hosts and repo paths" }
}
