/// Writes the pack a push sends (or `gitwire pack-objects --stdout`): the objects reachable from
/// `include` and not from `exclude` (see ``init(database:include:exclude:options:)``), streamed
/// in pieces through ``read(maxBytes:)`` with bounded memory, ending with the SHA-1 trailer.
///
/// Stored bytes are reused before anything is computed, as `git pack-objects` reuses them: an
/// object stored whole in a pack is copied compressed as it is; an object stored as a delta is
/// copied as that delta when its base is sent too (written first, as an offset delta when
/// allowed) or, in a thin pack, when the remote has the base. Loose objects and deltas whose base
/// goes nowhere are written whole, compressed again. No new deltas are searched for yet: such
/// objects go whole, so the pack can be larger than git's.
public final class PackWriter {
    /// How the pack may be written.
    public struct Options: Hashable, Sendable {
        /// Deltas may name their base by offset (`ofs-delta`); otherwise by id.
        public var offsetDeltas: Bool
        /// Deltas may have bases the pack leaves out because the remote has them (a thin pack).
        public var thin: Bool

        /// Options; by default offset deltas and no thin pack.
        public init(offsetDeltas: Bool = true, thin: Bool = false) {
            self.offsetDeltas = offsetDeltas
            self.thin = thin
        }
    }

    /// What went into the pack.
    public struct Statistics: Hashable, Sendable {
        /// Objects in the pack.
        public var objects = 0
        /// Of them, deltas.
        public var deltas = 0
        /// Objects copied from stored packs without recompression.
        public var reused = 0
        /// Of them, deltas.
        public var reusedDeltas = 0
        /// Bytes of the whole pack, trailer included.
        public var bytes: UInt64 = 0
    }

    private enum Plan {
        /// Copy the entry at `range` of pack `pack`, header included.
        case copy(pack: Int, range: Range<UInt64>)
        /// Copy the delta data at `data` of pack `pack` as a delta of `base`, of `size` bytes.
        case delta(pack: Int, data: Range<UInt64>, size: UInt64, base: ObjectID)
        /// Read the object and write it whole, compressed afresh.
        case whole
    }

    private struct Item {
        var id: ObjectID
        var plan: Plan
    }

    private let database: ObjectDatabase
    private let options: Options
    private var items: [Item] = []
    private var next = 0
    private var written: [ObjectID: UInt64] = [:]
    private var offset: UInt64 = 0
    private var hasher = UncheckedSHA1()
    private var pending: [UInt8] = []
    private var pendingCopy: (pack: Int, range: Range<UInt64>)?
    private var finished = false
    private var deflater: Deflater?
    /// What was written so far.
    public private(set) var statistics = Statistics()

    /// The number of objects the pack holds.
    public var objectCount: Int { items.count }

    /// Plans the pack of `database`'s objects reachable from `include` and not from `exclude`
    /// (ids the remote has; those the database lacks are ignored). Nothing is written yet.
    public init(database: ObjectDatabase, include: [ObjectID], exclude: [ObjectID], options: Options = Options()) throws
    {
        self.database = database
        self.options = options
        let walk = try ObjectWalk(database: database, include: include, exclude: exclude)
        try plan(walk)
        var header = Array("PACK".utf8)
        appendBigEndian(UInt32(2), to: &header)
        appendBigEndian(UInt32(items.count), to: &header)
        emit(header)
    }

    // MARK: Planning

    private func plan(_ walk: ObjectWalk) throws {
        let sending = Set(walk.objects.map(\.id))
        var located: [ObjectID: (pack: Int, header: PackEntryHeader, range: Range<UInt64>)] = [:]
        var offsetIDs: [Int: [UInt64: ObjectID]] = [:]
        func locate(_ id: ObjectID) throws -> (pack: Int, header: PackEntryHeader, range: Range<UInt64>)? {
            if let found = located[id] { return found }
            for (number, pack) in database.packs.enumerated() {
                guard let entry = try pack.entry(of: id) else { continue }
                located[id] = (number, entry.header, entry.range)
                return (number, entry.header, entry.range)
            }
            return nil
        }
        func baseID(of header: PackEntryHeader, in number: Int) -> ObjectID? {
            switch header.kind {
            case .object: return nil
            case .referenceDelta(let base): return base
            case .offsetDelta(let baseOffset):
                if offsetIDs[number] == nil {
                    let index = database.packs[number].index
                    var map: [UInt64: ObjectID] = [:]
                    map.reserveCapacity(index.count)
                    for position in 0..<index.count { map[index.offset(at: position)] = index.id(at: position) }
                    offsetIDs[number] = map
                }
                return offsetIDs[number]![baseOffset]
            }
        }

        enum Mark { case inProgress, done }
        var marks: [ObjectID: Mark] = [:]
        marks.reserveCapacity(walk.objects.count)
        items.reserveCapacity(walk.objects.count)
        // Depth first so that a reused delta's base is written before it; a base met again
        // while its own chain is being placed (a cycle across packs) makes the object whole.
        for entry in walk.objects {
            var stack: [(id: ObjectID, expanded: Bool)] = [(entry.id, false)]
            while let (id, expanded) = stack.popLast() {
                if marks[id] == .done { continue }
                guard let found = try locate(id) else {
                    marks[id] = .done
                    items.append(Item(id: id, plan: .whole))
                    continue
                }
                let base = baseID(of: found.header, in: found.pack)
                guard let base else {
                    marks[id] = .done
                    items.append(Item(id: id, plan: .copy(pack: found.pack, range: found.range)))
                    continue
                }
                let dataRange = (found.range.lowerBound + UInt64(found.header.length))..<found.range.upperBound
                let delta = Plan.delta(pack: found.pack, data: dataRange, size: found.header.size, base: base)
                if sending.contains(base) {
                    if expanded || marks[base] == .done {
                        marks[id] = .done
                        items.append(Item(id: id, plan: marks[base] == .done ? delta : .whole))
                    } else if marks[base] == .inProgress {
                        marks[id] = .done
                        items.append(Item(id: id, plan: .whole))
                    } else {
                        marks[id] = .inProgress
                        stack.append((id, true))
                        stack.append((base, false))
                    }
                } else {
                    marks[id] = .done
                    let thinBase = options.thin && walk.remoteHas.contains(base)
                    items.append(Item(id: id, plan: thinBase ? delta : .whole))
                }
            }
        }
    }

    // MARK: Writing

    /// The next bytes of the pack, about `maxBytes` of them (more when one object's header and
    /// compressed content run over); nil once the trailer has been returned.
    public func read(maxBytes: Int = 1 << 20) throws -> [UInt8]? {
        guard !finished || !pending.isEmpty else { return nil }
        while pending.count < maxBytes && !finished {
            if let copy = pendingCopy {
                let count = Int(min(copy.range.upperBound - copy.range.lowerBound, UInt64(maxBytes - pending.count)))
                let bytes = try database.packs[copy.pack].file.read(at: Int64(copy.range.lowerBound), count: count)
                guard bytes.count == count else { throw PackError(offset: copy.range.lowerBound, .packChangedOnDisk) }
                emit(bytes)
                let rest = (copy.range.lowerBound + UInt64(count))..<copy.range.upperBound
                pendingCopy = rest.isEmpty ? nil : (copy.pack, rest)
                continue
            }
            guard next < items.count else {
                let trailer = hasher.finish()
                pending += trailer.bytes
                statistics.bytes = offset + UInt64(trailer.bytes.count)
                finished = true
                break
            }
            try write(items[next])
            next += 1
        }
        let chunk = pending
        pending = []
        return chunk
    }

    private func write(_ item: Item) throws {
        written[item.id] = offset
        statistics.objects += 1
        switch item.plan {
        case .copy(let pack, let range):
            statistics.reused += 1
            pendingCopy = (pack, range)
        case .delta(let pack, let data, let size, let base):
            statistics.reused += 1
            statistics.reusedDeltas += 1
            statistics.deltas += 1
            if options.offsetDeltas, let baseOffset = written[base] {
                var header = PackEntryHeader.encode(typeNumber: 6, size: size)
                header += Self.encodeOffset(offset - baseOffset)
                emit(header)
            } else {
                emit(PackEntryHeader.encode(typeNumber: 7, size: size) + base.bytes)
            }
            pendingCopy = (pack, data)
        case .whole:
            guard let object = try database.object(item.id) else { throw PushPackError.missingObject(item.id) }
            if deflater == nil { deflater = try Deflater() }
            let compressed = try deflater!.deflateWhole(object.data[...])
            emit(PackEntryHeader.encode(type: object.type, size: UInt64(object.data.count)))
            emit(compressed)
        }
    }

    private func emit(_ bytes: [UInt8]) {
        hasher.update(bytes)
        offset += UInt64(bytes.count)
        pending += bytes
    }

    /// An offset delta's distance as the pack format writes it (big-endian groups of seven bits,
    /// each continuation adding one).
    static func encodeOffset(_ distance: UInt64) -> [UInt8] {
        var value = distance
        var bytes: [UInt8] = [UInt8(value & 0x7f)]
        value >>= 7
        while value > 0 {
            value -= 1
            bytes.append(0x80 | UInt8(value & 0x7f))
            value >>= 7
        }
        return bytes.reversed()
    }
}

extension PackReader {
    /// Where the entry of `id` lies in the pack file (header and compressed bytes) and its
    /// parsed header; nil when the pack does not hold it.
    func entry(of id: ObjectID) throws -> (header: PackEntryHeader, range: Range<UInt64>)? {
        guard let start = index.offset(of: id) else { return nil }
        var low = 0
        var high = boundaries.count - 1
        while low < high {
            let middle = (low + high) / 2
            if boundaries[middle] <= start { low = middle + 1 } else { high = middle }
        }
        guard low > 0, boundaries[low - 1] == start else { throw PackError(offset: start, .packChangedOnDisk) }
        let end = boundaries[low]
        let first = try file.read(at: Int64(start), count: Int(min(end - start, UInt64(PackEntryHeader.maximumLength))))
        guard let header = try PackEntryHeader.parse(first[...], at: start) else {
            throw PackError(offset: start, .packChangedOnDisk)
        }
        return (header, start..<end)
    }
}
