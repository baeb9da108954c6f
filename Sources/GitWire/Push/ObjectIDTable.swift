/// A set of object names for the push's walks, which look up every entry of every tree of the
/// history sent (millions for a large one): open addressing over the names themselves, the slot
/// taken from the name's first eight bytes (uniform, being a hash's) mixed with a random number
/// chosen once per process, so that names made to collide cannot be prepared in advance.
/// `Set<ObjectID>` hashes all of each name through SipHash, which made these lookups the
/// largest cost of walking a whole history.
struct ObjectIDTable {
    private var slots: [ObjectID]
    private var shift: UInt64
    /// All-zero names mark free slots; those names themselves (never objects) are kept aside.
    private var zeros: Set<ObjectID> = []
    /// The number of names held.
    private(set) var count = 0

    private static let seed = UInt64.random(in: .min ... .max)
    private static let free = ObjectID.zero(.sha1)

    /// An empty table with room for about `capacity` names before it grows.
    init(capacity: Int = 0) {
        var size = 16
        while size < capacity * 2 { size *= 2 }
        slots = Array(repeating: Self.free, count: size)
        shift = UInt64(64 - size.trailingZeroBitCount)
    }

    @inline(__always) private static func isFree(_ id: ObjectID) -> Bool {
        id.w0 == 0 && id.w1 == 0 && id.w2 == 0 && id.w3 == 0
    }

    @inline(__always) private func slot(of id: ObjectID) -> Int {
        Int(truncatingIfNeeded: ((id.w0 ^ Self.seed) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// Whether `id` is held.
    func contains(_ id: ObjectID) -> Bool {
        if Self.isFree(id) { return zeros.contains(id) }
        let mask = slots.count - 1
        var index = slot(of: id)
        while true {
            let held = slots[index]
            if held == id { return true }
            if Self.isFree(held) { return false }
            index = (index + 1) & mask
        }
    }

    /// Adds `id`; `inserted` says whether it was not held before (as `Set.insert` says).
    @discardableResult
    mutating func insert(_ id: ObjectID) -> (inserted: Bool, memberAfterInsert: ObjectID) {
        if Self.isFree(id) { return zeros.insert(id) }
        if (count + 1) * 2 > slots.count { grow() }
        let mask = slots.count - 1
        var index = slot(of: id)
        while true {
            let held = slots[index]
            if held == id { return (false, held) }
            if Self.isFree(held) {
                slots[index] = id
                count += 1
                return (true, id)
            }
            index = (index + 1) & mask
        }
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: Self.free, count: old.count * 2)
        shift -= 1
        let mask = slots.count - 1
        for id in old where !Self.isFree(id) {
            var index = slot(of: id)
            while !Self.isFree(slots[index]) { index = (index + 1) & mask }
            slots[index] = id
        }
    }
}
