/// Checks that what new refs point at is complete, as `git fetch` and `git clone` check before
/// updating refs (a server that sends a pack lacking objects must not leave refs pointing at a
/// broken history).
///
/// It needs no second pass over the pack: while the pack was indexed, a ``LinkCollector``
/// recorded every object its commits, trees and tags name (git's
/// `index-pack --check-self-contained-and-connected` does the same). Each of those, and each new
/// ref's target, must be in the repository now; an object the repository had before is taken as
/// complete, its own fetch having checked it.
struct ConnectivityCheck {
    let objects: ObjectDatabase

    /// Throws ``FetchError`` naming the first object missing.
    func verify(tips: [ObjectID], referenced: ObjectIDSet) throws {
        for id in tips where !objects.contains(id) { throw Self.missing(id) }
        for id in referenced where !objects.contains(id) { throw Self.missing(id) }
    }

    /// Throws ``FetchError`` naming the first parent missing of a commit that is no longer
    /// shallow (a server's `unshallow` line, or `--unshallow`/`--deepen`): that commit's parents
    /// must have come, or its history is broken once the `shallow` file no longer cuts it. Its
    /// parents that came in the pack are checked with the pack's links; one the repository had
    /// before is complete, or shallow itself. git's check after a deepening fetch walks the whole
    /// history from the new tips, which finds the same gap.
    func verifyParents(ofUnshallowed commits: Set<ObjectID>) throws {
        let graph = DatabaseCommitGraph(objects: objects)
        for id in commits {
            guard let commit = graph.commit(id) else { throw Self.missing(id) }
            for parent in commit.parents where !objects.contains(parent) { throw Self.missing(parent) }
        }
    }

    private static func missing(_ id: ObjectID) -> FetchError {
        FetchError(.pack, "remote did not send all necessary objects (\(id.hex) is missing)")
    }
}
