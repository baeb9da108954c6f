/// What every thread resolving deltas reads and nobody writes: where each entry is, which deltas
/// hang off which base, and the bases to start from.
package final class DeltaResolutionPlan: Sendable {
    /// The pack file to read entries from.
    package let packPath: String
    /// Each entry's offset in the pack.
    package let offsets: [UInt64]
    /// Where the last entry ends.
    package let endOffset: UInt64
    /// Offset deltas sorted by base index, then by the size of the tree of offset deltas that
    /// hangs off each (smallest first, so the largest is resolved last, when its base's data can
    /// be let go), then by position.
    package let offsetChildren: [OffsetDeltaLink]
    /// Reference deltas sorted by base name, then by position.
    package let referenceChildren: ReferenceDeltaLinks
    /// The whole objects that are the base of at least one delta, in pack order.
    package let roots: [Int32]
    /// The type of each root.
    package let rootTypes: [ObjectType]
    /// The name of each root.
    package let rootIDs: ObjectIDArray
    /// The bytes of base data each thread may keep in its cache.
    package let cacheLimitPerThread: Int
    /// The format of the pack's object names.
    package let format: ObjectFormat

    /// Makes the plan for `table`, taking its offset and reference deltas (the table's lists are
    /// left empty, so the largest lists are sorted in place rather than copied; the reference
    /// deltas in the pack's order are ``ReferenceDeltaLinks/inPackOrder()`` of ``referenceChildren``).
    package init(packPath: String, table: inout PackEntryTable, cacheLimitPerThread: Int) {
        self.packPath = packPath
        self.cacheLimitPerThread = cacheLimitPerThread
        format = table.format
        offsets = table.offsets
        endOffset = table.endOffset
        var offsetLinks: [OffsetDeltaLink] = []
        swap(&offsetLinks, &table.offsetDeltas)
        // Each entry's subtree size over offset deltas: a delta comes after its base in the pack,
        // so one pass from the end adds every subtree into its base's before the base is read.
        var subtreeSizes = [UInt32](repeating: 1, count: table.count)
        for link in offsetLinks.reversed() { subtreeSizes[Int(link.base)] += subtreeSizes[Int(link.delta)] }
        offsetLinks.sort {
            ($0.base, subtreeSizes[Int($0.delta)], $0.delta) < ($1.base, subtreeSizes[Int($1.delta)], $1.delta)
        }
        offsetChildren = offsetLinks
        // Taken from the table too and sorted in place: a sorted copy beside the first pass's list
        // held both through resolution (1.4 MB of dulwich's 9.6 MB heap peak with reference deltas).
        var referenceLinks = ReferenceDeltaLinks(format: table.format)
        swap(&referenceLinks, &table.referenceDeltas)
        referenceLinks.sortByBase()
        referenceChildren = referenceLinks
        var hasOffsetChild = [Bool](repeating: false, count: table.count)
        for link in offsetChildren { hasOffsetChild[Int(link.base)] = true }
        var roots: [Int32] = []
        var rootTypes: [ObjectType] = []
        var rootIDs = ObjectIDArray(format: table.format)
        for index in 0..<table.count where !table.isDelta(index) {
            let id = table.ids[index]
            if hasOffsetChild[index] || !referenceChildren.range(ofBase: id).isEmpty {
                roots.append(Int32(index))
                rootTypes.append(ObjectType(rawValue: table.typeNumbers[index])!)
                rootIDs.append(id)
            }
        }
        self.roots = roots
        self.rootTypes = rootTypes
        self.rootIDs = rootIDs
    }

    /// The byte range of entry `index` of the first pass.
    package func range(of index: Int) -> Range<UInt64> {
        offsets[index]..<(index + 1 < offsets.count ? offsets[index + 1] : endOffset)
    }
    /// The offset deltas based on entry `index`, as a range of ``offsetChildren``.
    package func offsetChildren(of index: Int32) -> Range<Int> {
        guard Int(index) < offsets.count else { return 0..<0 }
        let low = partitionPoint(in: 0..<offsetChildren.count) { offsetChildren[$0].base < index }
        var end = low
        while end < offsetChildren.count && offsetChildren[end].base == index { end += 1 }
        return low..<end
    }

    /// The reference deltas based on the object `id`, as a range of ``referenceChildren``.
    package func referenceChildren(of id: ObjectID) -> Range<Int> { referenceChildren.range(ofBase: id) }
}
