/// A ``CommitGraph`` over a repository's object database: commits are read and parsed as the
/// negotiation asks for them (only as much history as it walks), and remembered. Commits in the
/// repository's `shallow` file have no parents here, as in git.
///
/// Not `Sendable`, like the ``ObjectDatabase`` it reads: a graph belongs to one thread at a
/// time (a fetch's negotiation asks it from the run loop's thread, the ref updates after the
/// transfer from the thread that completes the fetch), so it needs no lock.
public final class DatabaseCommitGraph: CommitGraph {
    private let objects: ObjectDatabase
    private let shallow: Set<ObjectID>
    private var cache: [ObjectID: CommitSummary?] = [:]

    /// The commits of `objects`, cut at the `shallow` commits.
    public init(objects: ObjectDatabase, shallow: Set<ObjectID> = []) {
        self.objects = objects
        self.shallow = shallow
    }

    /// The commit `id`, or nil when the database has no such commit.
    public func commit(_ id: ObjectID) -> CommitSummary? {
        if let cached = cache[id] { return cached }
        var summary: CommitSummary?
        if let object = try? objects.object(id), object.type == .commit {
            summary = CommitSummary(commitData: object.data, format: objects.format)
            if shallow.contains(id), let found = summary {
                summary = CommitSummary(parents: [], committerTime: found.committerTime)
            }
        }
        cache[id] = .some(summary)
        return summary
    }

    /// The object the annotated tag `id` names (its `object` line), or nil when `id` is no tag
    /// here.
    public func tagTarget(_ id: ObjectID) -> ObjectID? {
        guard let object = try? objects.object(id), object.type == .tag else { return nil }
        return (try? ObjectLinks.links(of: .tag, data: object.data, format: objects.format))?.first?.id
    }
}
