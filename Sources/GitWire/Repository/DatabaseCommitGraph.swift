/// A ``CommitGraph`` over a repository's object database: commits are read and parsed as the
/// negotiation asks for them (only as much history as it walks), and remembered. Commits in the
/// repository's `shallow` file have no parents here, as in git.
public final class DatabaseCommitGraph: CommitGraph {
    /// Only ever touched under the lock, from whichever thread asks.
    private struct State: ~Copyable, @unchecked Sendable {
        let objects: ObjectDatabase
        var cache: [ObjectID: CommitSummary?] = [:]
    }

    private let state: Locked<State>
    private let shallow: Set<ObjectID>

    /// The commits of `objects`, cut at the `shallow` commits.
    public init(objects: ObjectDatabase, shallow: Set<ObjectID> = []) {
        state = Locked(State(objects: objects))
        self.shallow = shallow
    }

    /// The commit `id`, or nil when the database has no such commit.
    public func commit(_ id: ObjectID) -> CommitSummary? {
        let isShallow = shallow.contains(id)
        return state.withLock { state in
            if let cached = state.cache[id] { return cached }
            var summary: CommitSummary?
            if let object = try? state.objects.object(id), object.type == .commit {
                summary = CommitSummary(commitData: object.data, format: state.objects.format)
                if isShallow, let found = summary {
                    summary = CommitSummary(parents: [], committerTime: found.committerTime)
                }
            }
            state.cache[id] = .some(summary)
            return summary
        }
    }
}
