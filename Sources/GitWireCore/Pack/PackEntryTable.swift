/// What the first pass records about each entry of a pack, in pack order, as parallel arrays
/// (a few dozen bytes per object).
package struct PackEntryTable: Sendable {
    /// An empty table for a pack of `format`.
    package init(format: ObjectFormat = .sha1) { self.format = format }

    /// The format of the pack's object names.
    package let format: ObjectFormat

    /// Each entry's offset in the pack.
    package var offsets: [UInt64] = []
    /// The CRC-32 of each entry's raw bytes (header and zlib stream).
    package var crc32s: [UInt32] = []
    /// Each entry's pack type number (1 to 4, 6 or 7).
    package var typeNumbers: [UInt8] = []
    /// Each entry's object name; zero for a delta until it is resolved.
    package var ids: [ObjectID] = []
    /// The offset deltas, in pack order.
    package var offsetDeltas: [OffsetDeltaLink] = []
    /// The reference deltas, in pack order.
    package var referenceDeltas: [ReferenceDeltaLink] = []
    /// Where the entries end: the offset of the trailing checksum.
    package var endOffset: UInt64 = UInt64(PackHeader.length)

    /// The number of entries.
    package var count: Int { offsets.count }

    /// Makes room for more entries when `count` fill the arrays: twice as many, but no more than the
    /// header announces. Growth follows the entries that actually arrive, so a lying header cannot
    /// force a large allocation; an honest one saves the slack of doubling past the real count.
    package mutating func reserve(growingFrom count: Int, upTo announced: Int) {
        let capacity = max(count + 1, min(max(count * 2, 1024), announced))
        offsets.reserveCapacity(capacity)
        crc32s.reserveCapacity(capacity)
        typeNumbers.reserveCapacity(capacity)
        ids.reserveCapacity(capacity)
    }

    /// Whether entry `index` is a delta.
    package func isDelta(_ index: Int) -> Bool { typeNumbers[index] >= 6 }

    /// The index of the entry at `offset`, or nil if no entry starts there.
    package func index(ofOffset offset: UInt64) -> Int? {
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
package struct OffsetDeltaLink: Sendable {
    package var base: Int32
    package var delta: Int32

    package init(base: Int32, delta: Int32) {
        self.base = base
        self.delta = delta
    }
}

/// A reference delta and the name of its base.
package struct ReferenceDeltaLink: Sendable {
    package var base: ObjectID
    package var delta: Int32

    package init(base: ObjectID, delta: Int32) {
        self.base = base
        self.delta = delta
    }
}
