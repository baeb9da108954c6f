/// What the first pass records about each entry of a pack, in pack order, as parallel arrays
/// (a few dozen bytes per object).
package struct PackEntryTable: Sendable {
    /// An empty table for a pack of `format`.
    package init(format: ObjectFormat = .sha1) {
        self.format = format
        ids = ObjectIDArray(format: format)
        referenceDeltas = ReferenceDeltaLinks(format: format)
    }

    /// The format of the pack's object names.
    package let format: ObjectFormat

    /// Each entry's offset in the pack.
    package var offsets: [UInt64] = []
    /// The CRC-32 of each entry's raw bytes (header and zlib stream).
    package var crc32s: [UInt32] = []
    /// Each entry's pack type number (1 to 4, 6 or 7).
    package var typeNumbers: [UInt8] = []
    /// Each entry's object name; zero for a delta until it is resolved.
    package var ids: ObjectIDArray
    /// The offset deltas, in pack order.
    package var offsetDeltas: [OffsetDeltaLink] = []
    /// The reference deltas, in pack order.
    package var referenceDeltas: ReferenceDeltaLinks
    /// Where the entries end: the offset of the trailing checksum.
    package var endOffset: UInt64 = UInt64(PackHeader.length)

    /// The number of entries.
    package var count: Int { offsets.count }

    /// The entries every array has room for since the last ``reserve(growingFrom:upTo:)``: reserve
    /// again when the table holds this many (not when `offsets` is full: an array may get more
    /// room than asked for, and then the names' array would grow by doubling on its own).
    package private(set) var reservedCount = 0

    /// Makes room for more entries when `count` fill the arrays: twice as many, but no more than the
    /// header announces. Growth follows the entries that actually arrive, so a lying header cannot
    /// force a large allocation; an honest one saves the slack of doubling past the real count.
    package mutating func reserve(growingFrom count: Int, upTo announced: Int) {
        let capacity = max(count + 1, min(max(count * 2, 1024), announced))
        reservedCount = capacity
        offsets.reserveCapacity(capacity)
        crc32s.reserveCapacity(capacity)
        typeNumbers.reserveCapacity(capacity)
        ids.reserveCapacity(capacity)
    }

    /// Whether entry `index` is a delta.
    package func isDelta(_ index: Int) -> Bool { typeNumbers[index] >= 6 }

    /// The index of the entry at `offset`, or nil if no entry starts there.
    package func index(ofOffset offset: UInt64) -> Int? {
        let position = partitionPoint(in: 0..<offsets.count) { offsets[$0] < offset }
        return position < offsets.count && offsets[position] == offset ? position : nil
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

/// The reference deltas of a pack with the names of their bases, stored compactly: 24 bytes a
/// link in a SHA-1 pack (the base's three words, the delta's index in the low half of the third,
/// which a SHA-1 name leaves zero: what a link took before names carried their format), 40 in a
/// SHA-256 pack, where an array of ``ReferenceDeltaLink`` takes 48 bytes a link.
package struct ReferenceDeltaLinks: RandomAccessCollection, Sendable {
    @usableFromInline struct NarrowLink: Sendable {
        @usableFromInline var w0: UInt64
        @usableFromInline var w1: UInt64
        /// Bytes 16 to 19 of the base in the high half, the delta's index in the low half.
        @usableFromInline var w2: UInt64

        @usableFromInline init(w0: UInt64, w1: UInt64, w2: UInt64) {
            self.w0 = w0
            self.w1 = w1
            self.w2 = w2
        }
    }

    @usableFromInline struct WideLink: Sendable {
        @usableFromInline var base: (UInt64, UInt64, UInt64, UInt64)
        @usableFromInline var delta: Int32

        @usableFromInline init(base: (UInt64, UInt64, UInt64, UInt64), delta: Int32) {
            self.base = base
            self.delta = delta
        }
    }

    @usableFromInline enum Storage: Sendable {
        case narrow([NarrowLink])
        case wide([WideLink])
    }

    @usableFromInline var storage: Storage

    /// No links, in a pack of `format`.
    package init(format: ObjectFormat) { storage = format == .sha1 ? .narrow([]) : .wide([]) }

    /// The position of the first link.
    @inlinable
    package var startIndex: Int { 0 }

    /// One past the position of the last link.
    @inlinable
    package var endIndex: Int {
        switch storage {
        case .narrow(let links): return links.count
        case .wide(let links): return links.count
        }
    }

    /// The link at `position`.
    @inlinable
    package subscript(position: Int) -> ReferenceDeltaLink {
        switch storage {
        case .narrow(let links):
            let link = links[position]
            return ReferenceDeltaLink(
                base: ObjectID(words: link.w0, link.w1, link.w2 & 0xffff_ffff_0000_0000, 0, format: .sha1),
                delta: Int32(truncatingIfNeeded: link.w2 & 0xffff_ffff))
        case .wide(let links):
            let link = links[position]
            return ReferenceDeltaLink(
                base: ObjectID(words: link.base.0, link.base.1, link.base.2, link.base.3, format: .sha256),
                delta: link.delta)
        }
    }

    /// Adds a link whose base is of the pack's format; `delta` must not be negative.
    package mutating func append(_ link: ReferenceDeltaLink) {
        let base = link.base
        switch storage {
        case .narrow(var links):
            precondition(base.format == .sha1 && link.delta >= 0)
            storage = .narrow([])
            links.append(NarrowLink(w0: base.w0, w1: base.w1, w2: base.w2 | UInt64(UInt32(link.delta))))
            storage = .narrow(links)
        case .wide(var links):
            precondition(base.format == .sha256)
            storage = .wide([])
            links.append(WideLink(base: (base.w0, base.w1, base.w2, base.w3), delta: link.delta))
            storage = .wide(links)
        }
    }

    /// The links sorted by base name, then by delta.
    package func sortedByBase() -> ReferenceDeltaLinks {
        var sorted = self
        sorted.sortByBase()
        return sorted
    }

    /// Sorts the links by base name, then by delta, in place when nothing else holds them.
    package mutating func sortByBase() {
        switch storage {
        case .narrow(var links):
            storage = .narrow([])
            links.sort { ($0.w0, $0.w1, $0.w2) < ($1.w0, $1.w1, $1.w2) }
            storage = .narrow(links)
        case .wide(var links):
            storage = .wide([])
            links.sort {
                ($0.base.0, $0.base.1, $0.base.2, $0.base.3, $0.delta) < (
                    $1.base.0, $1.base.1, $1.base.2, $1.base.3, $1.delta
                )
            }
            storage = .wide(links)
        }
    }

    /// The links in the order of their deltas in the pack, the order the first pass found them.
    package func inPackOrder() -> [ReferenceDeltaLink] { sorted { $0.delta < $1.delta } }

    /// The positions of the links based on `id`, in links sorted by ``sortedByBase()``.
    package func range(ofBase id: ObjectID) -> Range<Int> {
        switch storage {
        case .narrow(let links):
            guard id.format == .sha1 else { return 0..<0 }
            let key = (id.w0, id.w1, id.w2)
            return Self.range(links) { link in
                let base = (link.w0, link.w1, link.w2 & 0xffff_ffff_0000_0000)
                return base < key ? -1 : base == key ? 0 : 1
            }
        case .wide(let links):
            guard id.format == .sha256 else { return 0..<0 }
            let key = (id.w0, id.w1, id.w2, id.w3)
            return Self.range(links) { link in link.base < key ? -1 : link.base == key ? 0 : 1 }
        }
    }

    /// The positions of the links whose base `order` says is the key (0), in links sorted so that
    /// those before it (-1) come first.
    private static func range<Link>(_ links: [Link], order: (Link) -> Int) -> Range<Int> {
        let low = partitionPoint(in: 0..<links.count) { order(links[$0]) < 0 }
        var end = low
        while end < links.count && order(links[end]) == 0 { end += 1 }
        return low..<end
    }
}
