/// Peels annotated tags by reading the tag objects, as git does when it writes `packed-refs`
/// (`peel_object`): a tag's `object` line, through tags of tags, to the first object that is not
/// a tag. What a server says tags peel to (v0 `^{}` lines, v2 `peeled:`) is never taken.
struct TagPeeler {
    let objects: ObjectDatabase
    private var known: [ObjectID: ObjectID?] = [:]

    init(objects: ObjectDatabase) { self.objects = objects }

    /// What `id` peels to when it names an annotated tag; nil for any other object, and for a tag
    /// whose chain cannot be read (git then writes no `^` line).
    mutating func peel(_ id: ObjectID) -> ObjectID? {
        // Every tag met on the way gets the same answer, so a long chain is read once however
        // many refs lead into it.
        var chain: [ObjectID] = []
        var current = id
        var result: ObjectID?
        while true {
            if let cached = known[current] {
                result = cached
                break
            }
            // The type from the header first: what names a large blob does not read it.
            guard (try? objects.objectType(current)) == .tag, let object = try? objects.object(current),
                let link = try? ObjectLinks.links(of: .tag, data: object.data, format: objects.format).first
            else {
                result = nil
                break
            }
            chain.append(current)
            // As git's deref_tag_noverify: a target that says it is not a tag is the answer,
            // whether or not it is here; one that says it is a tag must be one.
            if link.type != .tag {
                result = link.id
                break
            }
            current = link.id
        }
        for tag in chain { known[tag] = .some(result) }
        return result
    }

    /// The commit `id` names, itself or through annotated tags (git's
    /// `lookup_commit_reference`); nil when it names no commit that is here.
    mutating func commit(_ id: ObjectID) -> ObjectID? {
        let target = peel(id) ?? id
        guard (try? objects.objectType(target)) == .commit else { return nil }
        return target
    }
}

/// git's rule for `shallow` lines a server sends without being asked to cut history (a v0
/// advertisement's `shallow` lines, or a v2 `shallow-info` section when the fetch does not
/// deepen): they say the server's own repository is shallow there. A fetch into an existing
/// repository never writes them into its `shallow` file; instead a ref whose new history reaches
/// one of them is refused (`fetch-pack.c`'s `update_shallow`, `shallow.c`'s
/// `assign_shallow_commits_to_refs`), since taking it would need the repository to become
/// shallow. Such a commit counts when it came in the pack ("theirs"), or when it was here before
/// (and not already shallow here) but no local ref reaches it ("ours").
struct RemoteShallowRule {
    /// The commits the server says are shallow.
    let remoteShallow: [ObjectID]
    /// Those of them the repository had before the pack.
    let hadBefore: Set<ObjectID>
    /// The repository's `shallow` file before the fetch.
    let localShallow: Set<ObjectID>
    /// The repository's refs before the fetch.
    let localTips: [ObjectID]
    /// The repository's objects as they were before the pack.
    let objectsBefore: ObjectDatabase
    /// The repository's objects now.
    let objects: ObjectDatabase

    /// The local names of the refs in `updates` (those whose value changes) that must be refused.
    func refusedRefs(_ updates: [(local: String, id: ObjectID)]) -> Set<String> {
        let ours = Set(remoteShallow.filter { hadBefore.contains($0) && !localShallow.contains($0) })
        let theirs = Set(remoteShallow.filter { !hadBefore.contains($0) && objects.contains($0) })
        guard !ours.isEmpty || !theirs.isEmpty, !updates.isEmpty else { return [] }
        var peeler = TagPeeler(objects: objects)
        let localGraph = DatabaseCommitGraph(objects: objects, shallow: localShallow)
        let tips = localTips.compactMap { peeler.commit($0) }
        var reachableFromRefs: [ObjectID: Bool] = [:]
        var refused = Set<String>()
        for (local, id) in updates {
            guard let tip = peeler.commit(id) else { continue }
            var seen = Set<ObjectID>()
            var stack = [tip]
            while let commit = stack.popLast() {
                guard seen.insert(commit).inserted else { continue }
                if theirs.contains(commit) {
                    refused.insert(local)
                    break
                }
                if ours.contains(commit) {
                    let reachable =
                        reachableFromRefs[commit]
                        ?? tips.contains { RepositoryFetch.isAncestor(commit, of: $0, graph: localGraph) }
                    reachableFromRefs[commit] = reachable
                    if !reachable {
                        refused.insert(local)
                        break
                    }
                    continue
                }
                // History the repository had before: its own refs' business, not this fetch's.
                if objectsBefore.contains(commit) || localShallow.contains(commit) { continue }
                stack.append(contentsOf: localGraph.commit(commit)?.parents ?? [])
            }
        }
        return refused
    }
}
