import Synchronization

/// Resolves a pack's offset deltas on a thread of its own while the pack still arrives (gitwire
/// issue #24; Documentation/Performance.md, "Resolving deltas while the pack arrives").
///
/// The parsing thread hands each entry it records to ``add(_:)`` once the entry's bytes are in the
/// temporary pack file; this thread reads them back with `pread`. An offset delta is resolved when
/// it arrives, from its base's data in an LRU cache sized to the pack, or, when the base is not
/// there, from its nearest cached ancestor (a whole object is read from the file). Results are
/// named in batches (``ObjectHashBatch``) as in ``DeltaTreeResolver``. Reference deltas, and
/// everything based on them, are left to the final resolution, as are deltas on objects too large
/// for the cache. Work done twice (rebuilding evicted bases) is bounded by the work done once: when
/// rebuilds would exceed it, the thread stops resolving.
///
/// The thread never reports an error: whatever it meets (a bad delta, a stream it cannot read, a
/// collision) makes it stop and drop its results, and the final resolution then resolves the
/// pack as if it had never run, failing with the error it always did. ``finish()`` stops and joins
/// it (call it at the end of the input, or before the temporary files are removed).
final class EarlyDeltaResolver {
    /// What the thread leaves for the final resolution.
    struct Outcome {
        /// Delta applications, rebuilds included.
        var statistics: DeltaResolutionStatistics
    }

    /// The deltas resolved, by entry index, and their names, handed from the thread to the parsing
    /// thread in batches (``takeNames(_:)``), which writes them into its table at once.
    struct Names {
        var indices: [Int32] = []
        var ids: ObjectIDArray
    }

    /// The entries waiting for the thread. When it is full the parsing thread does not wait: the
    /// thread is stopped instead (what it resolved is kept), so that receiving never slows down
    /// for it.
    private let queue: BlockingQueue<[ReceivedEntry]>
    /// What the thread resolved and the parsing thread has not taken yet.
    private let names: Locked<Names>
    /// In test mode, the number of batches the thread has taken in and worked off.
    private let acknowledged = BlockingQueue<Int>(capacity: 1 << 30)
    private let flags: Flags
    private let worker: Worker
    private var thread: JoinableThread?
    private var pending: [ReceivedEntry] = []
    private var batchesSent = 0
    private var batchesAcknowledged = 0
    private var finished = false
    /// Whether entries are still handed to the thread (not once it was stopped for a full queue).
    private var sending = true
    let probe: EarlyResolutionProbe?

    /// The entries the queue holds at most (as batches of up to 1,024).
    static let queueCapacity = 1 << 15
    /// The latest entries the thread keeps (start, base, type: 13 bytes each), a power of two: a
    /// delta whose base is older than that is left to the end, as is everything based on it.
    static let window = 1 << 16
    /// The entries the thread takes in ahead of the one it works on, at most; with the queue's,
    /// how far the thread may fall behind before it is stopped.
    static let backlog = window / 2

    /// The cache of base data for a pack of `objectCount` objects: 64 bytes an object, at
    /// least 2 MiB and at most 8 MiB (more kept the peak memory of git.git's clone above git's:
    /// Documentation/Performance.md).
    static func cacheLimit(objectCount: Int) -> Int { min(8 << 20, max(2 << 20, objectCount &* 64)) }

    /// Starts the thread, reading the pack being written at `packPath`, of `objectCount` objects
    /// named in `format`; nil if no thread can be started (the pack is then resolved at the end).
    init?(
        packPath: String, format: ObjectFormat, objectCount: Int, links: LinkCollector?, probe: EarlyResolutionProbe?
    ) {
        queue = BlockingQueue(capacity: probe?.queueCapacity ?? Self.queueCapacity)
        let flags = Flags()
        let names = Locked(Names(ids: ObjectIDArray(format: format)))
        guard
            let worker = try? Worker(
                packPath: packPath, format: format, objectCount: objectCount,
                cacheLimit: Self.cacheLimit(objectCount: objectCount), links: links, flags: flags, names: names)
        else { return nil }
        self.flags = flags
        self.names = names
        self.worker = worker
        self.probe = probe
        let queue = queue
        let acknowledged = acknowledged
        let acknowledges = probe?.waitsAfterEachChunk ?? false
        nonisolated(unsafe) let unsafeWorker = worker
        guard
            let thread = try? JoinableThread({
                probe?.waitIfHeld()
                unsafeWorker.run(queue: queue, acknowledged: acknowledges ? acknowledged : nil)
            })
        else { return nil }
        self.thread = thread
    }

    deinit { _ = finish() }

    /// Takes the next entry recorded by the first pass; its bytes must be in the file already.
    func add(_ entry: ReceivedEntry) {
        guard sending else { return }
        pending.append(entry)
        if pending.count >= 1024 { flush() }
    }

    /// Hands the entries taken so far to the thread; call when the chunk they came from is
    /// parsed. Never waits for the thread, except in test mode, where it waits until the thread
    /// has worked them off: if the queue is full, the thread is stopped instead.
    func flush() {
        if !pending.isEmpty {
            // A copy of the entries' size: `pending`'s buffer, room for 1,024, stays here (a
            // queue of batches of a chunk's few entries each would hold mostly unused room).
            if queue.offer(Array(pending[...]), weight: pending.count) {
                batchesSent += 1
            } else {
                // Full (the thread is too far behind) or closed (it ended): no more early work.
                sending = false
                flags.stop.store(true, ordering: .relaxed)
                queue.close(discardingItems: true)
                probe?.queueWasFull(batchesSent)
            }
            pending.removeAll(keepingCapacity: sending)
        }
        guard probe?.waitsAfterEachChunk == true, thread != nil else { return }
        while batchesAcknowledged < batchesSent, let done = acknowledged.take() {
            batchesAcknowledged = max(batchesAcknowledged, done)
        }
    }

    /// Calls `body` with each delta the thread resolved since the last call (entry index and name),
    /// without waiting for it.
    func takeNames(_ body: (Int32, ObjectID) -> Void) {
        let taken = names.withLock { names in
            let taken = names
            names = Names(ids: ObjectIDArray(format: names.ids.format))
            return taken
        }
        for (position, index) in taken.indices.enumerated() { body(index, taken.ids[position]) }
    }

    /// Notes in the probe that the input has ended, with how many deltas were resolved by then.
    func inputEnded() {
        flush()
        probe?.endOfInput(resolved: flags.resolved.load(ordering: .relaxed))
    }

    /// Stops the thread at the next delta and waits for it; returns its results, or nil if it met
    /// an error (or was finished before): the names taken with ``takeNames(_:)`` are then not to
    /// be used. Entries not worked off yet are left; call ``takeNames(_:)`` for the last names.
    func finish() -> Outcome? {
        guard !finished else { return nil }
        finished = true
        pending.removeAll()
        flags.stop.store(true, ordering: .relaxed)
        queue.close(discardingItems: true)
        acknowledged.close(discardingItems: true)
        probe?.releaseResolver()
        thread?.join()
        thread = nil
        let result = worker.takeOutcome()
        probe?.resolverEnded(failed: result == nil)
        return result
    }

    /// What the two threads share: whether to stop, and the deltas resolved so far.
    private final class Flags: Sendable {
        let stop = Atomic<Bool>(false)
        let resolved = Atomic<Int>(0)
    }

    /// The thread's state: only the thread touches it until it is joined.
    private final class Worker {
        private let format: ObjectFormat
        private let file: File
        private let inflater: Inflater
        private let wholeInflater: WholeInflater
        private let cacheLimit: Int
        private let links: LinkCollector?
        private var linkBatch: LinkBatch = []
        private let flags: Flags
        private let names: Locked<Names>

        /// The latest entries taken in, at `index & mask`: where each starts, its offset-delta
        /// base (-1 if none), and the type of its object once known (0 while unknown: a delta not
        /// resolved, or left to the end). Older entries are gone.
        private var starts: [UInt64]
        private var bases: [Int32]
        private var types: [UInt8]
        private let mask: Int
        /// The number of entries taken in, and where the last one ends.
        private var count = 0
        private var lastEnd: UInt64 = 0
        /// Entries that are not to be used as bases here (their data is larger than the cache
        /// allows): their deltas are left to the end.
        private var tooLarge: Set<Int32> = []
        /// The next entry to work on.
        private var next = 0

        private var cache: [Int32: (data: [UInt8], tick: Int)] = [:]
        private var cacheOrder: [(index: Int32, tick: Int)] = []
        private var cacheOrderHead = 0
        private var cachedBytes = 0
        private var tick = 0

        private var hashBatch: ObjectHashBatch
        private var batchEntries: [(index: Int32, type: ObjectType, data: [UInt8])] = []
        /// Names not handed to the parsing thread yet.
        private var results: Names
        private var statistics = DeltaResolutionStatistics()
        /// Bytes made once (results), and bytes made again (rebuilt bases and whole objects read):
        /// the thread stops resolving when the second outgrows the first by more than 64 MiB.
        private var bytesMade = 0
        private var bytesRemade = 0
        /// Deltas applied once, and applied again to rebuild bases: a rebuild that would take the
        /// second past the first by more than 4,096 is not begun, and the thread stops.
        private var deltasMade = 0
        private var deltasRemade = 0
        private var overBudget = false
        private var failed = false

        init(
            packPath: String, format: ObjectFormat, objectCount: Int, cacheLimit: Int, links: LinkCollector?,
            flags: Flags, names: Locked<Names>
        ) throws {
            self.format = format
            // A power of two, no larger than the pack needs.
            var slots = 1024
            while slots < min(objectCount, EarlyDeltaResolver.window) { slots *= 2 }
            mask = slots - 1
            starts = [UInt64](repeating: 0, count: slots)
            bases = [Int32](repeating: -1, count: slots)
            types = [UInt8](repeating: 0, count: slots)
            self.names = names
            file = try File.openForReading(packPath)
            inflater = try Inflater()
            wholeInflater = try WholeInflater()
            self.cacheLimit = cacheLimit
            self.links = links
            self.flags = flags
            hashBatch = ObjectHashBatch(format: format)
            results = Names(ids: ObjectIDArray(format: format))
        }

        func run(queue: BlockingQueue<[ReceivedEntry]>, acknowledged: BlockingQueue<Int>?) {
            // Below the parsing and receiving threads: it uses only the time they leave.
            lowerCurrentThreadPriority(by: 5)
            var taken = 0
            defer {
                // Whatever ends the thread, the parsing thread must not wait for it: later entries
                // are refused, and a test waiting for it goes on.
                queue.close(discardingItems: true)
                acknowledged?.put(Int.max, weight: 0)
            }
            while let batch = queue.take() {
                take(batch)
                taken += 1
                while hasRoom, let more = queue.poll() {
                    take(more)
                    taken += 1
                }
                while next < count && !failed && !flags.stop.load(ordering: .relaxed) {
                    resolve(Int32(next))
                    next += 1
                    // Entries that arrived meanwhile are taken in, as far as the window allows.
                    if next & 63 == 0, hasRoom, let more = queue.poll() {
                        take(more)
                        taken += 1
                    }
                }
                if failed || flags.stop.load(ordering: .relaxed) { break }
                acknowledged?.put(taken, weight: 0)
            }
            if !failed {
                do { try nameBatch() } catch { failed = true }
            }
            handOver()
            links?.record(linkBatch)
            linkBatch = []
            cache = [:]
            cacheOrder = []
            starts = []
            bases = []
            types = []
            // What the thread freed stays in its allocator arena, resident, unless given back:
            // measured, 4-5 MiB on git.git's pack when the thread stopped before the end.
            releaseFreeMemory()
        }

        /// The results, or nil if the thread failed; called once the thread is joined.
        func takeOutcome() -> Outcome? {
            guard !failed else { return nil }
            return Outcome(statistics: statistics)
        }

        /// Whether a batch of entries can be taken in: the entries not worked off yet stay in the
        /// window with room for their bases.
        private var hasRoom: Bool { count - next + 1024 <= EarlyDeltaResolver.backlog }

        private func take(_ batch: [ReceivedEntry]) {
            for entry in batch {
                let slot = count & mask
                starts[slot] = entry.start
                lastEnd = entry.end
                bases[slot] = entry.typeNumber == 6 ? entry.base : -1
                types[slot] = entry.typeNumber <= 4 ? entry.typeNumber : 0
                count += 1
            }
        }

        /// Whether entry `index` is still in the window.
        private func isKept(_ index: Int32) -> Bool { Int(index) > count - mask - 1 && Int(index) < count }

        private func range(of index: Int32) -> Range<UInt64> {
            let position = Int(index)
            return starts[position & mask]..<(position + 1 < count ? starts[(position + 1) & mask] : lastEnd)
        }

        /// Resolves entry `index` if it is an offset delta whose base can be had here.
        private func resolve(_ index: Int32) {
            let base = bases[Int(index) & mask]
            guard base >= 0, isKept(base), types[Int(base) & mask] != 0, !tooLarge.contains(base) else { return }
            do {
                let baseData = try data(of: base)
                guard !overBudget, bytesRemade <= bytesMade + (64 << 20) else {
                    // Rebuilding costs more than the work it saves: leave the rest to the end.
                    flags.stop.store(true, ordering: .relaxed)
                    return
                }
                guard let baseData else { return }
                let result = try apply(index, to: baseData)
                deltasMade += 1
                let type = ObjectType(rawValue: types[Int(base) & mask])!
                types[Int(index) & mask] = types[Int(base) & mask]
                bytesMade += result.count
                flags.resolved.add(1, ordering: .relaxed)
                remember(index, result)
                if result.count <= DeltaTreeResolver.batchLargestObject {
                    hashBatch.append(type: type, data: result)
                    batchEntries.append((index, type, result))
                    if hashBatch.count >= 64 || hashBatch.bytes >= 4 << 20 { try nameBatch() }
                } else {
                    named(index, type: type, id: try ObjectID.of(type: type, data: result[...], format: format), result)
                }
            } catch {
                failed = true
            }
        }

        /// The data of entry `index` (resolved, or a whole object), from the cache or made again
        /// from its nearest cached ancestor; nil if it is too large to be used as a base here.
        private func data(of index: Int32) throws -> [UInt8]? {
            if let found = cached(index) { return found }
            var chain: [Int32] = []
            var ancestor = index
            var data: [UInt8]? = nil
            while true {
                if let found = cached(ancestor) {
                    data = found
                    break
                }
                // An ancestor out of the window: left to the end.
                guard isKept(ancestor) else { return nil }
                let base = bases[Int(ancestor) & mask]
                guard base >= 0 else { break }
                chain.append(ancestor)
                ancestor = base
            }
            guard deltasRemade + chain.count <= deltasMade + 4096 else {
                overBudget = true
                return nil
            }
            if data == nil {
                // A whole object, read once its size is known to fit.
                guard let whole = try readWhole(ancestor) else { return nil }
                data = whole
                bytesRemade += whole.count
                remember(ancestor, whole)
            }
            for delta in chain.reversed() {
                let made = try apply(delta, to: data!)
                deltasRemade += 1
                bytesRemade += made.count
                remember(delta, made)
                data = made
            }
            guard data!.count <= cacheLimit / 4 else {
                tooLarge.insert(index)
                return nil
            }
            return data
        }

        /// The content of the whole object at entry `index`, or nil if it is larger than a
        /// quarter of the cache (its deltas are then left to the end).
        private func readWhole(_ index: Int32) throws -> [UInt8]? {
            let range = range(of: index)
            let head = try file.read(at: Int64(range.lowerBound), count: Int(min(range.count, 64)))
            guard let header = try PackEntryHeader.parse(head[...], at: range.lowerBound, format: format) else {
                throw PackError(offset: range.lowerBound, .packChangedOnDisk)
            }
            guard header.size <= UInt64(cacheLimit / 4) else {
                tooLarge.insert(index)
                return nil
            }
            return try readEntry(range)
        }

        private func readEntry(_ range: Range<UInt64>) throws -> [UInt8] {
            // libdeflate may read whole objects' streams: the first pass has zlib read every one,
            // and a stream zlib refuses fails the pack, dropping whatever was made from it here.
            try PackEntryReading.read(range, of: file, format: format, with: inflater, whole: wholeInflater).data
        }

        private func apply(_ index: Int32, to base: [UInt8]) throws -> [UInt8] {
            // A delta's stream is read by zlib only here or in the final resolution (the first
            // pass had libdeflate find where it ends): zlib decides whether it is valid.
            let delta = try PackEntryReading.read(
                range(of: index), of: file, format: format, with: inflater, wholeRange: true
            ).data
            statistics.deltasApplied += 1
            return try Delta.applyNative(delta[...], to: base[...])
        }

        private func cached(_ index: Int32) -> [UInt8]? {
            guard let found = cache[index] else { return nil }
            tick += 1
            cache[index]!.tick = tick
            cacheOrder.append((index, tick))
            compactOrder()
            return found.data
        }

        /// Keeps `data` as entry `index`'s, evicting the least recently used entries over the
        /// limit; data larger than a quarter of the cache is not kept.
        private func remember(_ index: Int32, _ data: [UInt8]) {
            guard data.count <= cacheLimit / 4, cache[index] == nil else { return }
            tick += 1
            cache[index] = (data, tick)
            cacheOrder.append((index, tick))
            cachedBytes += data.count
            while cachedBytes > cacheLimit && cacheOrderHead < cacheOrder.count {
                let (oldest, used) = cacheOrder[cacheOrderHead]
                cacheOrderHead += 1
                // A later use moved the entry up: this mark is stale.
                guard let entry = cache[oldest], entry.tick == used else { continue }
                cachedBytes -= entry.data.count
                cache[oldest] = nil
            }
            compactOrder()
        }

        /// Drops the marks of entries evicted or used again since, once they are most of the list.
        private func compactOrder() {
            let marks = cacheOrder.count - cacheOrderHead
            guard marks >= 4096 && marks >= 2 * cache.count else {
                if cacheOrderHead >= 4096 && cacheOrderHead * 2 >= cacheOrder.count {
                    cacheOrder.removeFirst(cacheOrderHead)
                    cacheOrderHead = 0
                }
                return
            }
            cacheOrder = cacheOrder[cacheOrderHead...].filter { cache[$0.index]?.tick == $0.tick }
            cacheOrderHead = 0
        }

        private func nameBatch() throws {
            guard !batchEntries.isEmpty else { return }
            let results = hashBatch.hashAll()
            let entries = batchEntries
            batchEntries.removeAll(keepingCapacity: true)
            for (entry, result) in zip(entries, results) {
                named(entry.index, type: entry.type, id: try result.get(), entry.data)
            }
        }

        /// Hands the names made so far to the parsing thread.
        private func handOver() {
            guard !results.indices.isEmpty else { return }
            names.withLock { names in
                names.indices.append(contentsOf: results.indices)
                for id in results.ids { names.ids.append(id) }
            }
            results.indices.removeAll(keepingCapacity: true)
            results.ids = ObjectIDArray(format: format)
        }

        private func named(_ index: Int32, type: ObjectType, id: ObjectID, _ data: [UInt8]) {
            results.indices.append(index)
            results.ids.append(id)
            if results.indices.count >= 1024 { handOver() }
            if let links {
                links.collect(type: type, id: id, data: data, into: &linkBatch)
                if linkBatch.count >= 4096 {
                    links.record(linkBatch)
                    linkBatch.removeAll(keepingCapacity: true)
                }
            }
        }
    }
}
