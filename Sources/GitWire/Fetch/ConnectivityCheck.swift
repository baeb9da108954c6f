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

    /// Throws ``FetchError`` naming the first object missing, or the first named as a type it
    /// is not (a commit's `tree` line naming a blob, a tree entry with a tree's mode naming a
    /// blob, a `parent` naming a tree, a tag whose `type` line lies), as git's index-pack refuses
    /// them (`object <id> is a blob, not a tree`). `referenced` has ``LinkFlags`` for each
    /// object: what it was named as and, if the pack holds it and it is not a blob, what it is.
    /// An object the pack holds with no type noted is a blob; one that `before` (the objects the
    /// repository had, thin-pack bases included) holds is read when it is named as anything but
    /// a blob (one named as a blob is taken as it is: blobs are not read to learn their type).
    func verify(tips: [ObjectID], referenced: ObjectIDFlags, before: ObjectDatabase?) throws {
        for id in tips where !objects.contains(id) { throw Self.missing(id) }
        for (id, flags) in referenced {
            let namedAs = flags & 0x0f
            guard namedAs != 0 else { continue }
            let isA = flags >> 4
            if isA != 0 {
                if namedAs & ~isA != 0 { throw Self.mismatch(id, isA: isA, namedAs: namedAs & ~isA) }
                continue
            }
            guard objects.contains(id) else { throw Self.missing(id) }
            let blob = LinkFlags.namedAs(.blob)
            guard namedAs & ~blob != 0 else { continue }
            guard before?.contains(id) == true else { throw Self.mismatch(id, isA: blob, namedAs: namedAs & ~blob) }
            // One the repository had, named as a commit, tree or tag (a parent, a subtree, a
            // tag's target, few beside the pack): read, as git's check after a fetch reads it.
            guard let type = try objects.objectType(id) else { throw Self.missing(id) }
            let actual = LinkFlags.namedAs(type)
            if namedAs & ~blob & ~actual != 0 {
                throw Self.mismatch(id, isA: actual, namedAs: namedAs & ~blob & ~actual)
            }
        }
    }

    private static func mismatch(_ id: ObjectID, isA: UInt8, namedAs: UInt8) -> FetchError {
        let actual = LinkFlags.types(isA).first.map { "\($0)" } ?? "object"
        let expected = LinkFlags.types(namedAs).first.map { "\($0)" } ?? "object"
        return FetchError(.pack, "object \(id.hex) is a \(actual), not a \(expected)")
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
