extension PackReader {
    /// Where the entry of `id` lies in the pack file (header and compressed bytes) and its
    /// parsed header; nil when the pack does not hold it.
    func entry(of id: ObjectID) throws -> (header: PackEntryHeader, range: Range<UInt64>)? {
        try rankedEntry(of: id).map { ($0.header, $0.range) }
    }

    /// ``entry(of:)`` with the entry's rank in pack order (see ``entryRank(at:)``) and its
    /// position in the index.
    func rankedEntry(of id: ObjectID) throws -> (
        header: PackEntryHeader, range: Range<UInt64>, rank: Int, position: Int
    )? {
        guard let position = index.position(of: id) else { return nil }
        let start = index.offset(at: position)
        guard let rank = entryRank(at: start) else { throw PackError(offset: start, .packChangedOnDisk) }
        let (header, end) = try entryHeader(at: start, rank: rank)
        return (header, start..<end, rank, position)
    }

    /// The type of the object `id` (nil when the pack does not hold it), read from entry
    /// headers alone: a delta's is its base's, the chain followed header by header, so no
    /// object or delta is inflated whatever its size.
    func objectType(_ id: ObjectID) throws -> ObjectType? {
        guard let first = index.offset(of: id) else { return nil }
        var offset = first
        for _ in 0..<Self.maximumChainLength {
            guard let rank = entryRank(at: offset) else {
                throw PackError(offset: offset, .deltaBaseNotAnEntry(baseOffset: offset))
            }
            switch try entryHeader(at: offset, rank: rank).header.kind {
            case .object(let type): return type
            case .offsetDelta(let base): offset = base
            case .referenceDelta(let base):
                guard let baseOffset = index.offset(of: base) else {
                    throw PackError(offset: offset, .deltaBaseMissing(.id(base)))
                }
                offset = baseOffset
            }
        }
        throw PackError(offset: first, .deltaChainLoop)
    }

    /// The header of the entry that starts at `start` (of rank `rank`) and where the entry ends.
    private func entryHeader(at start: UInt64, rank: Int) throws -> (header: PackEntryHeader, end: UInt64) {
        let end = boundaries[rank + 1]
        let needed = Int(min(end - start, UInt64(PackEntryHeader.maximumLength)))
        let window = headerWindow
        let windowEnd = window.start + UInt64(window.bytes.count)
        let first: ArraySlice<UInt8>
        if start >= window.start && start + UInt64(needed) <= windowEnd {
            let from = Int(start - window.start)
            first = window.bytes[from..<(from + needed)]
        } else {
            // Reading on in pack order (at or just past the bytes read before) reads a run of
            // entries at once; any other header is read alone, as before.
            let onward = window.bytes.isEmpty || (start >= window.start && start < windowEnd + (64 << 10))
            let bytes = try file.read(at: Int64(start), count: onward ? max(needed, 64 << 10) : needed)
            guard bytes.count >= needed else { throw PackError(offset: start, .packChangedOnDisk) }
            headerWindow = (start, bytes)
            first = bytes[0..<needed]
        }
        guard let header = try PackEntryHeader.parse(first, at: start, format: index.format) else {
            throw PackError(offset: start, .packChangedOnDisk)
        }
        return (header, end)
    }
}

extension PackReader {
    /// The reverse index (what git keeps in a `.rev` file): for each entry in pack order, its
    /// position in the index (name order). With ``entryRank(at:)`` it names the entry at an
    /// offset, as an offset delta names its base, in 4 bytes per object where a dictionary from
    /// offsets to names took about 90.
    func reverseIndex() -> [UInt32] {
        var positions = [UInt32](repeating: 0, count: index.count)
        for position in 0..<index.count {
            // Every offset of the index is one of `boundaries` (they were made from them).
            guard let rank = entryRank(at: index.offset(at: position)) else { continue }
            positions[rank] = UInt32(truncatingIfNeeded: position)
        }
        return positions
    }

    /// The rank in pack order of the entry that starts at `offset`, or nil if none starts there.
    func entryRank(at offset: UInt64) -> Int? {
        let next = partitionPoint(in: 0..<max(boundaries.count - 1, 0)) { boundaries[$0] <= offset }
        guard next > 0, boundaries[next - 1] == offset else { return nil }
        return next - 1
    }
}
