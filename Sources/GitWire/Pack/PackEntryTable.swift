/// What the first pass records about each entry of a pack, in pack order, as parallel arrays
/// (a few dozen bytes per object).
struct PackEntryTable: Sendable {
    /// Each entry's offset in the pack.
    var offsets: [UInt64] = []
    /// The CRC-32 of each entry's raw bytes (header and zlib stream).
    var crc32s: [UInt32] = []
    /// Each entry's pack type number (1 to 4, 6 or 7).
    var typeNumbers: [UInt8] = []
    /// Each entry's object name; zero for a delta until it is resolved.
    var ids: [ObjectID] = []
    /// The offset deltas, in pack order.
    var offsetDeltas: [OffsetDeltaLink] = []
    /// The reference deltas, in pack order.
    var referenceDeltas: [ReferenceDeltaLink] = []
    /// Where the entries end: the offset of the trailing checksum.
    var endOffset: UInt64 = UInt64(PackHeader.length)

    /// The number of entries.
    var count: Int { offsets.count }

    /// Makes room for more entries when `count` fill the arrays: twice as many, but no more than the
    /// header announces. Growth follows the entries that actually arrive, so a lying header cannot
    /// force a large allocation; an honest one saves the slack of doubling past the real count.
    mutating func reserve(growingFrom count: Int, upTo announced: Int) {
        let capacity = max(count + 1, min(max(count * 2, 1024), announced))
        offsets.reserveCapacity(capacity)
        crc32s.reserveCapacity(capacity)
        typeNumbers.reserveCapacity(capacity)
        ids.reserveCapacity(capacity)
    }

    /// Whether entry `index` is a delta.
    func isDelta(_ index: Int) -> Bool { typeNumbers[index] >= 6 }

    /// The index of the entry at `offset`, or nil if no entry starts there.
    func index(ofOffset offset: UInt64) -> Int? {
        var low = 0
        var high = offsets.count
        while low < high {
            let middle = (low + high) / 2
            if offsets[middle] < offset { low = middle + 1 } else { high = middle }
        }
        return low < offsets.count && offsets[low] == offset ? low : nil
    }
}

/// An offset delta and the entry it is based on, by entry index.
struct OffsetDeltaLink: Sendable {
    var base: Int32
    var delta: Int32
}

/// A reference delta and the name of its base.
struct ReferenceDeltaLink: Sendable {
    var base: ObjectID
    var delta: Int32
}
