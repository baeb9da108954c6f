/// A check run with the updates a push is about to make, once the remote's refs are known and
/// before anything is sent: git's `pre-push` hook is one (gitwire's CLI runs it through this).
/// An error it throws ends the push with nothing sent (a persistent connection is ended with
/// a flush packet), and the push fails with that error. It is called on the push's run loop
/// thread, which waits for it (as git's push waits for its hook).
///
/// Two checks are equal only when they are the same value (copies of one another), so that
/// ``RepositoryPushOptions`` stays `Hashable`.
public struct PrePushCheck: Hashable, Sendable {
    private final class Identity: Sendable {}
    private let identity = Identity()
    /// Runs the check with the updates git's `run_pre_push_hook` lists, in its order: every
    /// ref the push matched but those up to date and those refused here as non-fast-forward or
    /// stale (`--force-with-lease`); a ref refused for another reason (a tag that exists, a
    /// remote commit not held here) is listed, as git lists it; the remote refs `--mirror`
    /// deletes for want of a local one are not (git's hook hears nothing of them). Deletions have no
    /// ``PushRefResult/new`` value and no ``PushRefResult/source``.
    public let run: @Sendable ([PushRefResult]) throws -> Void

    /// A check that runs `run`.
    public init(_ run: @escaping @Sendable ([PushRefResult]) throws -> Void) {
        self.run = run
    }

    /// Whether a ref's planned outcome is one git's pre-push hook is told about.
    static func lists(_ status: PushRefResult.Status) -> Bool {
        switch status {
        case .upToDate, .rejected(.nonFastForward), .rejected(.stale): false
        default: true
        }
    }

    /// Equal when they are copies of one check.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.identity === rhs.identity }

    /// Hashes the check's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(identity)) }
}
