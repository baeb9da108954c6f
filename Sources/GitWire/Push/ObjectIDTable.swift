/// A set of object names for the push's walks, which look up every entry of every tree of the
/// history sent (millions for a large one): an ``ObjectIDMap`` with no values (open addressing
/// over the names themselves, the slot taken from the name's first eight bytes mixed with a random
/// number chosen once per process, so that names made to collide cannot be prepared in advance).
/// `Set<ObjectID>` hashes all of each name through SipHash, which made these lookups the largest
/// cost of walking a whole history.
struct ObjectIDTable {
    private var map: ObjectIDMap<Void>

    /// An empty table with room for about `capacity` names before it grows.
    init(capacity: Int = 0) { map = ObjectIDMap(capacity: capacity) }

    /// The number of names held.
    var count: Int { map.count }

    /// Whether `id` is held.
    func contains(_ id: ObjectID) -> Bool { map[id] != nil }

    /// Adds `id`; `inserted` says whether it was not held before (as `Set.insert` says).
    @discardableResult
    mutating func insert(_ id: ObjectID) -> (inserted: Bool, memberAfterInsert: ObjectID) {
        (map.insertIfAbsent(id, ()), id)
    }
}
