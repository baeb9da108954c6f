/// What every thread resolving deltas reads and nobody writes: where each entry is, which deltas
/// hang off which base, and the bases to start from.
final class DeltaResolutionPlan: Sendable {
    /// The pack file to read entries from.
    let packPath: String
    /// Where each entry is in the pack (see ``PackEntryTable``).
    let table: PackEntryTable
    /// Offset deltas sorted by base index, then by position.
    let offsetChildren: [OffsetDeltaLink]
    /// Reference deltas sorted by base name, then by position.
    let referenceChildren: [ReferenceDeltaLink]
    /// The whole objects that are the base of at least one delta, in pack order.
    let roots: [Int32]
    /// The bytes of base data each thread may keep in its cache.
    let cacheLimitPerThread: Int

    init(packPath: String, table: PackEntryTable, cacheLimitPerThread: Int) {
        self.packPath = packPath
        self.table = table
        self.cacheLimitPerThread = cacheLimitPerThread
        offsetChildren = table.offsetDeltas.sorted { ($0.base, $0.delta) < ($1.base, $1.delta) }
        referenceChildren = table.referenceDeltas.sorted { ($0.base, $0.delta) < ($1.base, $1.delta) }
        var roots: [Int32] = []
        var hasOffsetChild = [Bool](repeating: false, count: table.count)
        for link in offsetChildren { hasOffsetChild[Int(link.base)] = true }
        for index in 0..<table.count where !table.isDelta(index) {
            if hasOffsetChild[index] || !Self.range(of: table.ids[index], in: referenceChildren).isEmpty {
                roots.append(Int32(index))
            }
        }
        self.roots = roots
    }

    /// The offset deltas based on entry `index`, as a range of ``offsetChildren``.
    func offsetChildren(of index: Int32) -> Range<Int> {
        guard Int(index) < table.count else { return 0..<0 }
        var low = 0
        var high = offsetChildren.count
        while low < high {
            let middle = (low + high) / 2
            if offsetChildren[middle].base < index { low = middle + 1 } else { high = middle }
        }
        var end = low
        while end < offsetChildren.count && offsetChildren[end].base == index { end += 1 }
        return low..<end
    }

    /// The reference deltas based on the object `id`, as a range of ``referenceChildren``.
    func referenceChildren(of id: ObjectID) -> Range<Int> { Self.range(of: id, in: referenceChildren) }

    private static func range(of id: ObjectID, in links: [ReferenceDeltaLink]) -> Range<Int> {
        var low = 0
        var high = links.count
        while low < high {
            let middle = (low + high) / 2
            if links[middle].base < id { low = middle + 1 } else { high = middle }
        }
        var end = low
        while end < links.count && links[end].base == id { end += 1 }
        return low..<end
    }
}
