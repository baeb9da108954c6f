/// Checks that what new refs point at is complete: every object reachable from them is in the
/// repository, as `git fetch` and `git clone` check before updating refs (a server that sends a
/// pack lacking objects must not leave refs pointing at a broken history).
///
/// Only the objects of the new pack are walked; an object the repository had before is taken as
/// complete (its own fetch checked it), so a fetch into a large repository walks what it brought.
struct ConnectivityCheck {
    let objects: ObjectDatabase
    /// The pack the fetch wrote, whose objects are walked; nil when none came.
    let newPack: PackReader?
    /// Commits whose parents are cut off (shallow boundaries).
    let shallow: Set<ObjectID>
    /// A partial clone: missing blobs and trees are allowed (the promisor remote has them).
    let allowsMissingContent: Bool

    /// Throws ``FetchError`` naming the first object missing below `tips`.
    func verify(tips: [ObjectID]) throws {
        var seen = Set<ObjectID>()
        var stack = tips
        while let id = stack.popLast() {
            guard seen.insert(id).inserted else { continue }
            if let newPack, newPack.contains(id) {
                let object = try newPack.object(id)!
                var links = try ObjectLinks.links(of: object.type, data: object.data)
                if object.type == .commit && shallow.contains(id) { links.removeAll { $0.type == .commit } }
                for link in links where !seen.contains(link.id) {
                    if allowsMissingContent && link.type != .commit && link.type != .tag && !objects.contains(link.id) {
                        continue
                    }
                    stack.append(link.id)
                }
            } else if !objects.contains(id) {
                throw FetchError(.pack, "remote did not send all necessary objects (\(id.hex) is missing)")
            }
        }
    }
}
