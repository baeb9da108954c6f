/// A dictionary keyed by object names for the push's planning and writing, which look up and
/// record every object sent several times (where each object is, whether it is placed, where
/// it was written), and with no values the walks' ``ObjectIDTable``: open addressing, the slot taken from the name's
/// first eight bytes mixed with a random number chosen once per process. `Dictionary` hashes
/// all of each name through SipHash. Entries are never removed.
struct ObjectIDMap<Value> {
    private var keys: [ObjectID]
    private var values: [Value?]
    private var shift: UInt64
    /// All-zero names mark free slots; those names themselves (never objects) are kept aside.
    private var zeros: [ObjectID: Value] = [:]
    /// The number of names held.
    private(set) var count = 0

    private static var seed: UInt64 { ObjectIDMapSeed.value }
    private static var free: ObjectID { ObjectID.zero(.sha1) }

    /// An empty map with room for about `capacity` names before it grows.
    init(capacity: Int = 0) {
        var size = 16
        while size < capacity * 2 { size *= 2 }
        keys = Array(repeating: Self.free, count: size)
        values = Array(repeating: nil, count: size)
        shift = UInt64(64 - size.trailingZeroBitCount)
    }

    @inline(__always) private static func isFree(_ id: ObjectID) -> Bool {
        id.w0 == 0 && id.w1 == 0 && id.w2 == 0 && id.w3 == 0
    }

    @inline(__always) private func slot(of id: ObjectID) -> Int {
        Int(truncatingIfNeeded: ((id.w0 ^ Self.seed) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The slot that holds `id`, or the free slot where it would go (linear probing).
    @inline(__always) private func probe(_ id: ObjectID) -> Int {
        let mask = keys.count - 1
        var index = slot(of: id)
        while true {
            let held = keys[index]
            if held == id || Self.isFree(held) { return index }
            index = (index + 1) & mask
        }
    }

    /// The value for `id`, nil if `id` is not held; setting it adds or replaces (never removes:
    /// setting nil is ignored).
    subscript(id: ObjectID) -> Value? {
        get {
            if Self.isFree(id) { return zeros[id] }
            let index = probe(id)
            return Self.isFree(keys[index]) ? nil : values[index]
        }
        set {
            guard let newValue else { return }
            if Self.isFree(id) {
                zeros[id] = newValue
                return
            }
            if (count + 1) * 2 > keys.count { grow() }
            let index = probe(id)
            if Self.isFree(keys[index]) {
                keys[index] = id
                count += 1
            }
            values[index] = newValue
        }
    }

    /// Adds `id` with `value` unless `id` is held already (then nothing changes); says whether it
    /// was added. One probe where a lookup and then a store would take two.
    mutating func insertIfAbsent(_ id: ObjectID, _ value: Value) -> Bool {
        if Self.isFree(id) {
            guard zeros[id] == nil else { return false }
            zeros[id] = value
            return true
        }
        if (count + 1) * 2 > keys.count { grow() }
        let index = probe(id)
        guard Self.isFree(keys[index]) else { return false }
        keys[index] = id
        values[index] = value
        count += 1
        return true
    }

    private mutating func grow() {
        let oldKeys = keys
        let oldValues = values
        keys = Array(repeating: Self.free, count: oldKeys.count * 2)
        values = Array(repeating: nil, count: oldKeys.count * 2)
        shift -= 1
        for (position, id) in oldKeys.enumerated() where !Self.isFree(id) {
            let index = probe(id)
            keys[index] = id
            values[index] = oldValues[position]
        }
    }
}

/// The random number ``ObjectIDMap`` mixes into slots (a generic type cannot hold a stored
/// static property).
private enum ObjectIDMapSeed {
    static let value = UInt64.random(in: .min ... .max)
}
