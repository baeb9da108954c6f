/// Writes the pack a push sends (or `gitwire pack-objects --stdout`): the objects reachable from
/// `include` and not from `exclude` (see ``init(database:include:exclude:options:progress:)``),
/// streamed in pieces through ``read(maxBytes:)`` with bounded memory, ending with the trailer
/// (the pack's SHA-1, or SHA-256 for a SHA-256 repository's objects).
///
/// Stored bytes are reused before anything is computed, as `git pack-objects` reuses them: an
/// object stored whole in a pack is copied compressed as it is; an object stored as a delta is
/// copied as that delta when its base is sent too (written first, as an offset delta when
/// allowed) or, in a thin pack, when the remote has the base. The other objects (stored whole,
/// loose, or deltas whose base goes nowhere) are searched for new deltas as git searches: sorted
/// by type, path hash and size, each tried against the ``Options/window`` objects before it,
/// chains at most ``Options/depth`` long, on ``Options/threads`` threads; in a thin pack, the
/// objects the remote has at the same paths serve as bases too.
public final class PackWriter {
    /// How the pack may be written.
    public struct Options: Hashable, Sendable {
        /// Deltas may name their base by offset (`ofs-delta`); otherwise by id.
        public var offsetDeltas: Bool
        /// Deltas may have bases the pack leaves out because the remote has them (a thin pack).
        public var thin: Bool
        /// Objects tried as bases for each object that needs a delta (git's `pack.window`).
        public var window: Int
        /// The longest chain of new deltas (git's `pack.depth`); 0 searches for no new deltas.
        public var depth: Int
        /// Threads searching for deltas.
        public var threads: Int
        /// Whether the walk reads trees on a second thread (nil: when it is large enough and the
        /// machine has two processors); the pack is the same either way.
        package var walkReadAhead: Bool?
        /// Whether the walk reads the repository's commit-graph when it has one (git's
        /// `core.commitGraph`, on by default); the pack is the same either way.
        public var commitGraph = true
        /// The fewest objects located on two threads (when the machine has two processors); the
        /// pack is the same either way.
        package var parallelLocateObjects = 20_000

        /// Options; by default offset deltas, no thin pack, git's window (10) and depth (50), a
        /// thread per processor.
        public init(
            offsetDeltas: Bool = true, thin: Bool = false, window: Int = 10, depth: Int = 50,
            threads: Int = WorkerThreads.processorCount
        ) {
            self.offsetDeltas = offsetDeltas
            self.thin = thin
            self.window = window
            self.depth = depth
            self.threads = max(1, threads)
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

    enum Plan {
        /// Copy the entry at `range` of pack `pack`, header included.
        case copy(pack: Int, range: Range<UInt64>)
        /// Copy the delta data at `data` of pack `pack` as a delta of `base`, of `size` bytes.
        case delta(pack: Int, data: Range<UInt64>, size: UInt64, base: ObjectID)
        /// Read the object and write it whole, compressed afresh.
        case whole
        /// A delta found by the search: against `base`, `size` bytes, compressed if kept.
        case newDelta(base: ObjectID, size: Int, compressed: [UInt8]?)
    }

    struct Item {
        var id: ObjectID
        var plan: Plan
        /// For a stored entry (copied or reused as a delta): the CRC-32 its index records for it,
        /// and where it starts.
        var stored: (crc: UInt32, start: UInt64)? = nil
    }

    let database: ObjectDatabase
    let options: Options
    let progress: (@Sendable (PackingProgress) -> Void)?
    var items: [Item] = []
    var position = ObjectIDMap<Int>()
    var queue: [Int] = []
    var next = 0
    /// Where each of `items` was written in the pack (``notWritten``: not yet), by its place in
    /// `items`: the writing looks up only a delta's base by name (in `position`), where a map of
    /// the objects written took three or four lookups an object (5% of curl's whole push).
    var writtenAt: [UInt64] = []
    /// ``writtenAt`` of an object not written yet.
    static let notWritten = UInt64.max
    var offset: UInt64 = 0
    /// The trailer's digest: SHA-1 (without collision detection: the pack is ours), or SHA-256
    /// when the database's format is SHA-256 (then `sha256` is set and `hasher` unused).
    var hasher = UncheckedSHA1()
    var sha256: SHA256?
    var pending: [UInt8] = []
    var pendingCopy: (pack: Int, range: Range<UInt64>)?
    /// The stored entry being copied, checked against the CRC-32 its pack's index records for it
    /// once its last byte is copied (see ``StoredEntryCheck``).
    var pendingCheck: StoredEntryCheck?
    var finished = false
    var deflater: Deflater?
    var writingPercent = -1
    /// What was written so far.
    public internal(set) var statistics = Statistics()

    /// The number of objects the pack holds.
    public var objectCount: Int { items.count }

    /// Plans the pack of `database`'s objects reachable from `include` and not from `exclude`
    /// (ids the remote has; those the database lacks are ignored), searching for new deltas.
    /// Nothing is written yet. `progress` hears each phase as git's `pack-objects` shows it.
    public init(
        database: ObjectDatabase, include: [ObjectID], exclude: [ObjectID], options: Options = Options(),
        progress: (@Sendable (PackingProgress) -> Void)? = nil
    ) throws {
        self.database = database
        self.options = options
        self.progress = progress
        if database.format == .sha256 { sha256 = SHA256() }
        let walk = try ObjectWalk(
            database: database, include: include, exclude: exclude, thin: options.thin,
            readAhead: options.walkReadAhead, commitGraph: options.commitGraph)
        progress?(.enumerated(objects: walk.objects.count + walk.preferredBases.count))
        let located = try plan(walk)
        try searchDeltas(walk, located: located)
        position = ObjectIDMap(capacity: items.count)
        writtenAt = [UInt64](repeating: Self.notWritten, count: items.count)
        for (index, item) in items.enumerated() { position[item.id] = index }
        var header = Array("PACK".utf8)
        appendBigEndian(UInt32(2), to: &header)
        appendBigEndian(UInt32(items.count), to: &header)
        emit(header)
    }

    // MARK: Planning

    typealias Location = (pack: Int, header: PackEntryHeader, range: Range<UInt64>)

    /// Where each object of the walk is stored, found before the plan (see ``locateAll(_:)``):
    /// its location, its rank in its pack's order, and for an offset delta its base's rank (-1:
    /// no entry starts at the base's offset).
    struct Stored {
        var location: Location?
        var rank: Int32 = -1
        var baseRank: Int32 = -1
        /// The CRC-32 the pack's index records for the entry.
        var crc: UInt32 = 0
    }

    /// Where the objects of a walk and its preferred bases are stored.
    struct Locations {
        /// Each walk object's number (its first place in the walk).
        var numbers: ObjectIDMap<Int32>
        var found: [Stored]
        /// The preferred bases that are not walk objects.
        var others: ObjectIDMap<Location>

        subscript(id: ObjectID) -> Location? {
            if let number = numbers[id] { return found[Int(number)].location }
            return others[id]
        }
    }

    /// Decides which stored bytes are reused; returns where each object is stored.
    private func plan(_ walk: ObjectWalk) throws -> Locations {
        let objects = walk.objects
        var numbers = ObjectIDMap<Int32>(capacity: objects.count)
        for (number, entry) in objects.enumerated() {
            _ = numbers.insertIfAbsent(entry.id, Int32(truncatingIfNeeded: number))
        }
        let found = try locateAll(objects)
        // For each pack, the walk object stored at each rank (-1: none), so that an offset
        // delta's base is found without naming it.
        var atRank = [[Int32]](repeating: [], count: database.packs.count)
        for (number, item) in found.enumerated() {
            guard let location = item.location else { continue }
            if atRank[location.pack].isEmpty {
                atRank[location.pack] = [Int32](repeating: -1, count: database.packs[location.pack].index.count)
            }
            if atRank[location.pack][Int(item.rank)] < 0 {
                atRank[location.pack][Int(item.rank)] = Int32(truncatingIfNeeded: number)
            }
        }
        var others = ObjectIDMap<Location>()
        var reverseIndexes = [[UInt32]?](repeating: nil, count: database.packs.count)
        let total = objects.count + walk.preferredBases.count
        var counted = 0
        var countedPercent = -1
        func count() {
            counted += 1
            let percent = counted * 100 / max(1, total)
            if percent != countedPercent || counted == total {
                countedPercent = percent
                progress?(.counting(completed: counted, total: total))
            }
        }
        // With one pack and no thin pack, an offset delta's base that is no walk object stored
        // there is not sent (a walk object is located in the first pack that has it), and its
        // name is not needed: the delta is made whole.
        let nameUnsentBases = options.thin || database.packs.count > 1
        /// The base of the stored entry `item`: its walk number when it is sent, and its id (nil
        /// when it is not sent and its name is not needed); nil for a whole object.
        func base(of item: Stored, id: ObjectID) throws -> (id: ObjectID?, number: Int?)? {
            guard let location = item.location else { return nil }
            switch location.header.kind {
            case .object: return nil
            case .referenceDelta(let base): return (base, numbers[base].map(Int.init))
            case .offsetDelta:
                // An offset where no entry starts: the pack is damaged. Copied as it is, the
                // entry would name garbage in the pack sent; git's pack-objects stops there.
                guard item.baseRank >= 0 else {
                    throw PushPackError.corruptPacked(id, packPath: database.packs[location.pack].packPath)
                }
                let number = atRank[location.pack][Int(item.baseRank)]
                if number >= 0 { return (objects[Int(number)].id, Int(number)) }
                guard nameUnsentBases else { return (nil, nil) }
                // Not a walk object stored there: named through the reverse index (it may still
                // be sent, stored first in another pack).
                let pack = database.packs[location.pack]
                if reverseIndexes[location.pack] == nil { reverseIndexes[location.pack] = pack.reverseIndex() }
                let id = pack.index.id(at: Int(reverseIndexes[location.pack]![Int(item.baseRank)]))
                return (id, numbers[id].map(Int.init))
            }
        }
        let preferred = Set(walk.preferredBases.map(\.id))

        // 0: not placed, 1: its chain being placed, 2: placed.
        var marks = [UInt8](repeating: 0, count: objects.count)
        items.reserveCapacity(objects.count)
        // Depth first so that a reused delta's base is written before it; a base met again
        // while its own chain is being placed (a cycle across packs) makes the object whole.
        var stack: [(number: Int, expanded: Bool)] = []
        for entry in objects {
            stack.append((Int(numbers[entry.id]!), false))
            while let (number, expanded) = stack.popLast() {
                if marks[number] == 2 { continue }
                if !expanded { count() }
                let id = objects[number].id
                let item = found[number]
                guard let location = item.location else {
                    marks[number] = 2
                    items.append(Item(id: id, plan: .whole))
                    continue
                }
                guard let base = try base(of: item, id: id) else {
                    marks[number] = 2
                    items.append(
                        Item(
                            id: id, plan: .copy(pack: location.pack, range: location.range),
                            stored: (item.crc, location.range.lowerBound)))
                    continue
                }
                let dataRange =
                    (location.range.lowerBound + UInt64(location.header.length))..<location.range.upperBound
                if let baseNumber = base.number, let baseID = base.id {
                    let delta = Plan.delta(
                        pack: location.pack, data: dataRange, size: location.header.size, base: baseID)
                    if expanded || marks[baseNumber] == 2 {
                        marks[number] = 2
                        items.append(
                            marks[baseNumber] == 2
                                ? Item(id: id, plan: delta, stored: (item.crc, location.range.lowerBound))
                                : Item(id: id, plan: .whole))
                    } else if marks[baseNumber] == 1 {
                        marks[number] = 2
                        items.append(Item(id: id, plan: .whole))
                    } else {
                        marks[number] = 1
                        stack.append((number, true))
                        stack.append((baseNumber, false))
                    }
                } else {
                    marks[number] = 2
                    // git reuses a delta in a thin pack when its base is one of the remote's
                    // objects it has picked as a preferred base; gitwire, for any the remote has.
                    if options.thin, let baseID = base.id,
                        preferred.contains(baseID) || walk.remoteHas.contains(baseID)
                    {
                        let delta = Plan.delta(
                            pack: location.pack, data: dataRange, size: location.header.size, base: baseID)
                        items.append(Item(id: id, plan: delta, stored: (item.crc, location.range.lowerBound)))
                    } else {
                        items.append(Item(id: id, plan: .whole))
                    }
                }
            }
        }
        for base in walk.preferredBases {
            if numbers[base.id] == nil && others[base.id] == nil {
                for (number, pack) in database.packs.enumerated() {
                    guard let entry = try pack.entry(of: base.id) else { continue }
                    others[base.id] = (number, entry.header, entry.range)
                    break
                }
            }
            count()
        }
        return Locations(numbers: numbers, found: found, others: others)
    }

    /// Objects larger than this are never deltas or bases (git's `core.bigFileThreshold`).
    static let bigFileThreshold = 512 << 20
    /// Compressed new deltas kept in memory until written, in bytes; past it, deltas are made
    /// again when written (git's `pack.deltaCacheSize`).
    static let deltaCacheBytes = 256 << 20

    private func searchDeltas(_ walk: ObjectWalk, located: Locations) throws {
        guard options.depth > 0, options.window > 0 else { return }
        var types = ObjectIDMap<(ObjectType, UInt32)>(capacity: walk.objects.count)
        for entry in walk.objects { types[entry.id] = (entry.type, entry.nameHash) }
        // Sizes come from headers, as git's `check_object` takes them: a delta's from the start of
        // its data, a loose object's from its header; nothing is inflated whole here.
        let inflater = try Inflater()
        func size(_ id: ObjectID, type known: ObjectType?) throws -> (ObjectType, Int, Int)? {
            if let found = located[id] {
                if case .object(let type) = found.header.kind {
                    return (type, Int(clamping: found.header.size), found.pack)
                }
                if let known {
                    let start = found.range.lowerBound + UInt64(found.header.length)
                    // Room for a dynamic Huffman block's tables before the first bytes come out.
                    let count = Int(min(found.range.upperBound - start, 1024))
                    let compressed = try database.packs[found.pack].file.read(at: Int64(start), count: count)
                    guard compressed.count == count else { throw PackError(offset: start, .packChangedOnDisk) }
                    let prefix = try inflater.inflatePrefix(compressed[...], count: 20)
                    if let target = Self.deltaResultSize(prefix) { return (known, target, -1) }
                }
            } else if let known, let header = try database.loose.header(id), header.type == known {
                return (header.type, header.size, -1)
            }
            guard let object = try database.object(id) else { return nil }
            return (object.type, object.data.count, -1)
        }
        var candidates: [Candidate] = []
        for (index, item) in items.enumerated() {
            if case .delta = item.plan { continue }
            guard let (type, bytes, pack) = try size(item.id, type: types[item.id]?.0), bytes >= 50,
                bytes <= Self.bigFileThreshold
            else {
                continue
            }
            candidates.append(
                Candidate(
                    id: item.id, type: type, nameHash: types[item.id]?.1 ?? 0, size: bytes, preferred: false,
                    order: index, item: index, pack: pack))
        }
        let searched = candidates.count
        for (index, base) in walk.preferredBases.enumerated() {
            guard let (type, bytes, pack) = try size(base.id, type: base.type), bytes >= 50,
                bytes <= Self.bigFileThreshold
            else {
                continue
            }
            candidates.append(
                Candidate(
                    id: base.id, type: type, nameHash: base.nameHash, size: bytes, preferred: true,
                    order: items.count + index, item: -1, pack: pack))
        }
        guard searched > 0, candidates.count > 1 else { return }
        candidates.sort { a, b in
            if a.type != b.type { return a.type.rawValue > b.type.rawValue }
            if a.nameHash != b.nameHash { return a.nameHash > b.nameHash }
            if a.preferred != b.preferred { return a.preferred }
            if a.size != b.size { return a.size > b.size }
            return a.order < b.order
        }
        let threads = min(options.threads, max(1, searched / 64))
        progress?(.compressing(completed: 0, total: searched, threads: options.threads))
        // Contiguous slices, each cut where the path hash changes so that files of one name stay
        // on one thread.
        var bounds = [0]
        for part in 1..<threads {
            var cut = candidates.count * part / threads
            while cut < candidates.count && cut > bounds.last!
                && candidates[cut].nameHash == candidates[cut - 1].nameHash
                && candidates[cut].type == candidates[cut - 1].type
            {
                cut += 1
            }
            if cut > bounds.last! && cut < candidates.count { bounds.append(cut) }
        }
        bounds.append(candidates.count)
        let slices = zip(bounds, bounds.dropFirst()).map { $0..<$1 }
        // Each thread reads through its own readers, which share the indexes already read and
        // checked here (opening the repository again per thread read, hashed and sorted a large
        // pack's index each time).
        let databases = Transferred(try slices.map { _ in try database.reopened() })
        let shared = DeltaSearchShared(
            candidates: candidates, total: searched, progress: progress, threads: options.threads)
        let options = self.options
        // Progress is reported from the calling thread (index 0), which watches the others:
        // handlers hear every report on the thread that made the pack.
        WorkerThreads.run(count: slices.count + 1) { part in
            guard part > 0 else { return shared.report(threads: slices.count) }
            shared.search(
                slices[part - 1], database: databases.value[part - 1], window: options.window,
                depth: options.depth)
        }
        if let error = shared.failure { throw error }
        for (index, found) in shared.results {
            let item = candidates[index].item
            items[item].plan = .newDelta(base: found.base, size: found.size, compressed: found.compressed)
        }
    }

    /// The result size a delta's data declares (its second varint, after the base's size), or
    /// nil when `prefix` is too short to hold both.
    static func deltaResultSize(_ prefix: [UInt8]) -> Int? {
        var position = 0
        func varint() -> Int? {
            var value = 0
            var shift = 0
            while position < prefix.count && shift < 63 {
                let byte = prefix[position]
                position += 1
                value |= Int(byte & 0x7f) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
            return nil
        }
        guard varint() != nil else { return nil }
        return varint()
    }
}
