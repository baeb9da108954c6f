/// What the local repository knows about one commit, as the fetch negotiation needs it.
public struct CommitSummary: Hashable, Sendable {
    /// The commit's parents, in order (none for a root commit or a shallow boundary).
    public var parents: [ObjectID]
    /// The committer time, in seconds since the epoch: the negotiation walks newest first.
    public var committerTime: Int64

    /// A summary with `parents` and `committerTime`.
    public init(parents: [ObjectID], committerTime: Int64) {
        self.parents = parents
        self.committerTime = committerTime
    }
}

/// The commits of the local repository, for the fetch negotiation: which commits it has and
/// how they link. Implementations read an object database, a commit-graph file, or a table.
///
/// A graph need not be `Sendable`: the negotiation asks it only from the thread the
/// ``FetchExchange`` runs on (a run loop's), one question at a time. A graph that reads a
/// repository belongs to that thread, as the repository's readers do.
public protocol CommitGraph {
    /// The commit `id`, or nil when the repository has no commit by that id (missing, or not a
    /// commit).
    func commit(_ id: ObjectID) -> CommitSummary?

    /// The object the annotated tag `id` points at, or nil when the repository has no tag by
    /// that id: the negotiation peels tags as git's fetch-pack does (`deref_without_lazy_fetch`).
    func tagTarget(_ id: ObjectID) -> ObjectID?
}

extension CommitGraph {
    /// No tags: a graph that knows only commits.
    public func tagTarget(_ id: ObjectID) -> ObjectID? { nil }
}
