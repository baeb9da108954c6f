/// A lock file exists: another git process is changing the same ref or file (or one crashed and
/// left its lock behind).
public struct LockHeldError: GitWireError, Hashable, Sendable {
    /// What kind of failure this is: ``GitWireErrorKind/system``.
    public var kind: GitWireErrorKind { .system }

    /// The lock file that exists.
    public let lockPath: String

    /// Makes the error for `lockPath`.
    public init(lockPath: String) { self.lockPath = lockPath }

    /// git's message for the same situation.
    public var description: String {
        """
        Unable to create '\(lockPath)': File exists.

        Another git process seems to be running in this repository, e.g.
        an editor opened by 'git commit'. Please make sure all processes
        are terminated then try again. If it still fails, a git process
        may have crashed in this repository earlier:
        remove the file manually to continue.
        """
    }
}
