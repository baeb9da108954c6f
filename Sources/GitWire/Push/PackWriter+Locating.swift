extension PackWriter {
    /// Where an object of the walk is in the indexes, before its header is read.
    struct Indexed {
        /// The first pack that holds it (-1: none).
        var pack: Int32 = -1
        /// Its rank in that pack's order.
        var rank: Int32 = -1
        var start: UInt64 = 0
        var end: UInt64 = 0
        var crc: UInt32 = 0
    }

    /// Finds `entries` in `packs`' indexes (the first pack that has each), in order: no pack
    /// bytes are read.
    static func findAll(_ entries: ArraySlice<ObjectWalk.Entry>, in packs: [PackReader]) throws -> [Indexed] {
        var result: [Indexed] = []
        result.reserveCapacity(entries.count)
        for entry in entries {
            var found = Indexed()
            for (number, pack) in packs.enumerated() {
                guard let position = pack.index.position(of: entry.id) else { continue }
                let start = pack.index.offset(at: position)
                guard let rank = pack.entryRank(at: start) else { throw PackError(offset: start, .packChangedOnDisk) }
                found = Indexed(
                    pack: Int32(number), rank: Int32(truncatingIfNeeded: rank), start: start,
                    end: pack.boundaries[rank + 1], crc: pack.index.crc32(at: position))
                break
            }
            result.append(found)
        }
        return result
    }

    /// The most bytes one read of headers takes, and the largest gap between two headers it
    /// reads over rather than reading them apart (a `pread` costs about what copying 16 KiB does).
    static let headerRunBytes: UInt64 = 256 << 10
    static let headerGapBytes: UInt64 = 16 << 10

    /// Reads the headers of the objects `order` names (numbers into `indexed`, all stored in
    /// pack `pack`, in pack order) with as few reads as runs of nearby entries allow; returns
    /// each one's header and, for an offset delta, its base's rank (-1: no entry starts there).
    static func readHeaders(
        _ order: ArraySlice<Int32>, indexed: [Indexed], pack: PackReader
    ) throws -> [(number: Int32, header: PackEntryHeader, baseRank: Int32)] {
        var result: [(number: Int32, header: PackEntryHeader, baseRank: Int32)] = []
        result.reserveCapacity(order.count)
        let maximum = UInt64(PackEntryHeader.maximumLength)
        var next = order.startIndex
        while next < order.endIndex {
            // A run of entries whose headers one read covers.
            let first = indexed[Int(order[next])]
            var last = next
            var runEnd = min(first.end, first.start + maximum)
            while last + 1 < order.endIndex {
                let candidate = indexed[Int(order[last + 1])]
                let candidateEnd = min(candidate.end, candidate.start + maximum)
                guard candidate.start <= runEnd + headerGapBytes, candidateEnd - first.start <= headerRunBytes else {
                    break
                }
                last += 1
                runEnd = max(runEnd, candidateEnd)
            }
            let bytes = try pack.file.read(at: Int64(first.start), count: Int(runEnd - first.start))
            for place in next...last {
                let number = order[place]
                let entry = indexed[Int(number)]
                let from = Int(entry.start - first.start)
                let needed = Int(min(entry.end - entry.start, maximum))
                guard from + needed <= bytes.count,
                    let header = try PackEntryHeader.parse(
                        bytes[from..<(from + needed)], at: entry.start, format: pack.index.format)
                else { throw PackError(offset: entry.start, .packChangedOnDisk) }
                var baseRank: Int32 = -1
                if case .offsetDelta(let baseOffset) = header.kind {
                    baseRank = Int32(truncatingIfNeeded: pack.entryRank(at: baseOffset) ?? -1)
                }
                result.append((number, header, baseRank))
            }
            next = last + 1
        }
        return result
    }

    /// Where each of `entries` is stored (see ``Stored``): found in the indexes in walk order,
    /// then their headers read in pack order (nearby entries' headers in one read, where the walk's
    /// order read them one by one as it jumped between commits, trees and blobs), each half on a
    /// thread of its own (the second through the database opened again) when there are many and
    /// the machine has two processors.
    func locateAll(_ entries: [ObjectWalk.Entry]) throws -> [Stored] {
        let parallel = entries.count >= max(2, options.parallelLocateObjects) && WorkerThreads.processorCount > 1
        let databases = [database] + (parallel ? [try database.reopened()] : [])
        let indexed: [Indexed]
        if parallel {
            let half = entries.count / 2
            let shared = Transferred(databases)
            let parts = Locked([Result<[Indexed], any Error>?](repeating: nil, count: 2))
            WorkerThreads.run(count: 2) { part in
                let slice = part == 0 ? entries[..<half] : entries[half...]
                let transferred = Transferred(Result { try Self.findAll(slice, in: shared.value[part].packs) })
                parts.withLock { $0[part] = transferred.value }
            }
            let results = parts.withLock { $0 }
            indexed = try results[0]!.get() + results[1]!.get()
        } else {
            indexed = try Self.findAll(entries[...], in: database.packs)
        }
        // Pack order: each pack's entries by rank.
        var order: [(pack: Int, numbers: [Int32])] = []
        for (packNumber, pack) in database.packs.enumerated() {
            var byRank = [Int32](repeating: -1, count: pack.index.count)
            var any = false
            for (number, found) in indexed.enumerated() where found.pack == Int32(packNumber) {
                byRank[Int(found.rank)] = Int32(number)
                any = true
            }
            if any { order.append((packNumber, byRank.filter { $0 >= 0 })) }
        }
        var stored = indexed.map { found in Stored(rank: found.rank, crc: found.crc) }
        func fill(_ part: [(number: Int32, header: PackEntryHeader, baseRank: Int32)], pack: Int) {
            for (number, header, baseRank) in part {
                let found = indexed[Int(number)]
                stored[Int(number)].location = (pack, header, found.start..<found.end)
                stored[Int(number)].baseRank = baseRank
            }
        }
        // The pieces of the pack order each thread reads: the first half of all headers, and
        // the rest.
        let total = order.reduce(0) { $0 + $1.numbers.count }
        var pieces: [[(pack: Int, numbers: ArraySlice<Int32>)]] = [[], []]
        var taken = 0
        for (pack, numbers) in order {
            let split = parallel ? min(numbers.count, max(0, total / 2 - taken)) : numbers.count
            if split > 0 { pieces[0].append((pack, numbers[..<split])) }
            if split < numbers.count { pieces[1].append((pack, numbers[split...])) }
            taken += numbers.count
        }
        if parallel {
            let shared = Transferred((databases, pieces, indexed))
            let parts = Locked(
                [Result<[(Int, [(number: Int32, header: PackEntryHeader, baseRank: Int32)])], any Error>?](
                    repeating: nil, count: 2))
            WorkerThreads.run(count: 2) { part in
                let (databases, pieces, indexed) = shared.value
                let result = Result {
                    try pieces[part].map { piece in
                        (
                            piece.pack,
                            try Self.readHeaders(
                                piece.numbers, indexed: indexed, pack: databases[part].packs[piece.pack])
                        )
                    }
                }
                let transferred = Transferred(result)
                parts.withLock { $0[part] = transferred.value }
            }
            let results = parts.withLock { $0 }
            for result in results {
                for (pack, part) in try result!.get() { fill(part, pack: pack) }
            }
        } else {
            for piece in pieces[0] + pieces[1] {
                fill(
                    try Self.readHeaders(piece.numbers, indexed: indexed, pack: database.packs[piece.pack]),
                    pack: piece.pack)
            }
        }
        return stored
    }
}
