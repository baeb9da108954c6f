/// A dictionary keyed by object names for the push's planning and writing, which look up and
/// record every object sent several times (where each object is, whether it is placed, where
/// it was written), and with no values the walks' ``ObjectIDTable``.
///
/// Names and values are kept densely, in the order they were added; the open-addressing table
/// (linear probing, at most half full) holds only an 8-byte word per slot: the entry's number and
/// 32 bits of the name's second word, so that a probe reads a name only when those bits match.
/// The slot is taken from the name's first eight bytes mixed with a random number chosen once per
/// process. `Dictionary` hashes all of each name through SipHash; a table of the names
/// themselves (40 bytes a slot, with the values beside them, most slots free) took several times
/// the memory: for curl's 287,791 objects a map of locations took 128 MB, now 40 MB.
/// Entries are never removed.
struct ObjectIDMap<Value> {
    /// 0: a free slot; otherwise the entry's number plus one in the low half and the high half of
    /// the name's `w1`.
    private var slots: [UInt64]
    private var keys: [ObjectID] = []
    private var values: [Value] = []
    private var shift: UInt64

    /// The number of names held.
    var count: Int { keys.count }

    private static var seed: UInt64 { ObjectIDMapSeed.value }
    private static var tagMask: UInt64 { 0xFFFF_FFFF_0000_0000 }

    /// An empty map with room for about `capacity` names before it grows.
    init(capacity: Int = 0) {
        var size = 16
        while size < capacity * 2 { size *= 2 }
        slots = Array(repeating: 0, count: size)
        shift = UInt64(64 - size.trailingZeroBitCount)
        keys.reserveCapacity(capacity)
        values.reserveCapacity(capacity)
    }

    @inline(__always) private func slot(of id: ObjectID) -> Int {
        Int(truncatingIfNeeded: ((id.w0 ^ Self.seed) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The slot that holds `id` and its entry's number, or the free slot where it would go and
    /// nil (linear probing).
    @inline(__always) private func probe(_ id: ObjectID) -> (slot: Int, entry: Int?) {
        let mask = slots.count - 1
        let tag = id.w1 & Self.tagMask
        var index = slot(of: id)
        while true {
            let held = slots[index]
            if held == 0 { return (index, nil) }
            if held & Self.tagMask == tag {
                let entry = Int(truncatingIfNeeded: held & ~Self.tagMask) - 1
                if keys[entry] == id { return (index, entry) }
            }
            index = (index + 1) & mask
        }
    }

    /// Adds `id` with `value` at the free slot `slot` (from ``probe(_:)``).
    @inline(__always) private mutating func add(_ id: ObjectID, _ value: Value, at slot: Int) {
        precondition(keys.count < Int(UInt32.max), "more names than an object map holds")
        keys.append(id)
        values.append(value)
        slots[slot] = UInt64(keys.count) | (id.w1 & Self.tagMask)
    }

    /// The value for `id`, nil if `id` is not held; setting it adds or replaces (never removes:
    /// setting nil is ignored).
    subscript(id: ObjectID) -> Value? {
        get {
            guard let entry = probe(id).entry else { return nil }
            return values[entry]
        }
        set {
            guard let newValue else { return }
            if (keys.count + 1) * 2 > slots.count { grow() }
            let (slot, entry) = probe(id)
            if let entry {
                values[entry] = newValue
            } else {
                add(id, newValue, at: slot)
            }
        }
    }

    /// Adds `id` with `value` unless `id` is held already (then nothing changes); says whether it
    /// was added. One probe where a lookup and then a store would take two.
    mutating func insertIfAbsent(_ id: ObjectID, _ value: Value) -> Bool {
        if (keys.count + 1) * 2 > slots.count { grow() }
        let (slot, entry) = probe(id)
        guard entry == nil else { return false }
        add(id, value, at: slot)
        return true
    }

    private mutating func grow() {
        slots = Array(repeating: 0, count: slots.count * 2)
        shift -= 1
        let mask = slots.count - 1
        for (entry, id) in keys.enumerated() {
            var index = slot(of: id)
            while slots[index] != 0 { index = (index + 1) & mask }
            slots[index] = UInt64(entry + 1) | (id.w1 & Self.tagMask)
        }
    }
}

/// The random number ``ObjectIDMap`` mixes into slots (a generic type cannot hold a stored
/// static property).
private enum ObjectIDMapSeed {
    static let value = UInt64.random(in: .min ... .max)
}
