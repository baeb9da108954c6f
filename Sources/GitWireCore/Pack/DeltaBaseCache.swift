/// Objects that were bases of delta chains, by where their entry is (pack and offset), kept while
/// their total size stays under a limit and dropped least recently used first (git's
/// `core.deltaBaseCacheLimit`): walking trees whose entries are deltas on deltas then inflates
/// each shared base once instead of once per object above it.
package struct DeltaBaseCache<Key: Hashable> {
    private struct Node {
        var key: Key
        var object: GitObject
        var newer: Int
        var older: Int
    }

    /// The most bytes of object data kept.
    package let limit: Int
    /// The bytes of object data kept now.
    package private(set) var size = 0
    private var slots: [Key: Int] = [:]
    private var nodes: [Node] = []
    private var free: [Int] = []
    /// The most and least recently used nodes, or -1.
    private var newest = -1
    private var oldest = -1

    package init(limit: Int) { self.limit = limit }

    /// How many objects are kept.
    package var count: Int { slots.count }

    /// The object kept for the entry at `key`, now the most recently used.
    package mutating func object(at key: Key) -> GitObject? {
        guard let slot = slots[key] else { return nil }
        unlink(slot)
        linkNewest(slot)
        return nodes[slot].object
    }

    /// Keeps `object`, the resolved entry at `key`, dropping the least recently used objects
    /// until it fits; an object larger than the whole limit is not kept, and one kept already is
    /// only marked used.
    package mutating func insert(_ object: GitObject, at key: Key) {
        if let slot = slots[key] {
            unlink(slot)
            linkNewest(slot)
            return
        }
        let bytes = object.data.count
        guard limit > 0, bytes <= limit else { return }
        while size + bytes > limit, oldest >= 0 { remove(oldest) }
        let node = Node(key: key, object: object, newer: -1, older: -1)
        let slot: Int
        if let reused = free.popLast() {
            slot = reused
            nodes[slot] = node
        } else {
            slot = nodes.count
            nodes.append(node)
        }
        slots[key] = slot
        size += bytes
        linkNewest(slot)
    }

    private mutating func remove(_ slot: Int) {
        unlink(slot)
        slots[nodes[slot].key] = nil
        size -= nodes[slot].object.data.count
        nodes[slot].object = GitObject(type: .blob, data: [])
        free.append(slot)
    }

    private mutating func unlink(_ slot: Int) {
        let newer = nodes[slot].newer
        let older = nodes[slot].older
        if newer >= 0 { nodes[newer].older = older } else { newest = older }
        if older >= 0 { nodes[older].newer = newer } else { oldest = newer }
        nodes[slot].newer = -1
        nodes[slot].older = -1
    }

    private mutating func linkNewest(_ slot: Int) {
        nodes[slot].older = newest
        nodes[slot].newer = -1
        if newest >= 0 { nodes[newest].newer = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
    }
}
