extension PackWriter {
    /// One object the delta search considers.
    struct Candidate: Sendable {
        var id: ObjectID
        var type: ObjectType
        var nameHash: UInt32
        var size: Int
        var preferred: Bool
        var order: Int
        /// The item it is, if sent.
        var item: Int
        /// The pack it is stored whole in, or -1.
        var pack: Int
    }

    /// The delta found for a candidate.
    struct Found: Sendable {
        var base: ObjectID
        var size: Int
        var compressed: [UInt8]?
    }
}

/// What the delta search threads share: the sorted candidates, the results, the progress.
final class DeltaSearchShared: @unchecked Sendable {
    // @unchecked: results, done, cached and failure are only touched under `lock`.
    let candidates: [PackWriter.Candidate]
    let total: Int
    let threads: Int
    let progress: (@Sendable (PackingProgress) -> Void)?
    private let lock = Locked(())
    private(set) var results: [Int: PackWriter.Found] = [:]
    private var done = 0
    private var percent = -1
    private var cached = 0
    private(set) var failure: (any Error)?

    init(
        candidates: [PackWriter.Candidate], total: Int, progress: (@Sendable (PackingProgress) -> Void)?, threads: Int
    ) {
        self.candidates = candidates
        self.total = total
        self.progress = progress
        self.threads = threads
    }

    private struct WindowEntry {
        var index: Int
        /// Read when first needed as a base.
        var data: [UInt8]?
        var source: DeltaSource?
        var depth: Int
    }

    /// Searches `range` of the candidates with a window of `window` and chains of `depth`,
    /// reading objects from `database` (this thread's alone). Objects are read only when a
    /// delta against them or to them is tried.
    func search(_ range: Range<Int>, database: ObjectDatabase, window: Int, depth maximumDepth: Int) {
        do {
            let deflater = try Deflater()
            func read(_ id: ObjectID) throws -> [UInt8] {
                guard let object = try database.object(id) else { throw PushPackError.missingObject(id) }
                return object.data
            }
            var entries: [WindowEntry] = []
            for index in range {
                let candidate = candidates[index]
                var target: [UInt8]?
                var best: (slot: Int, delta: [UInt8], depth: Int)?
                if !candidate.preferred {
                    for slot in entries.indices.reversed() {
                        let base = candidates[entries[slot].index]
                        guard base.type == candidate.type else { break }
                        // Two objects stored whole in one pack were judged there already (git's
                        // rule when reusing): only a preferred base is worth trying again.
                        if candidate.pack >= 0 && candidate.pack == base.pack && !base.preferred { continue }
                        let baseDepth = entries[slot].depth
                        guard baseDepth < maximumDepth else { continue }
                        // git's size heuristics: a delta must beat half the object (or the
                        // best delta so far), less for bases deep in a chain.
                        var limit = candidate.size / 2 - database.format.byteCount
                        var referenceDepth = 1
                        if let best {
                            limit = best.delta.count
                            referenceDepth = best.depth
                        }
                        guard limit > 0 else { continue }
                        limit = limit * (maximumDepth - baseDepth) / (maximumDepth - referenceDepth + 1)
                        guard limit > 0 else { continue }
                        let growth = base.size < candidate.size ? candidate.size - base.size : 0
                        guard growth < limit, candidate.size >= base.size / 32 else { continue }
                        if target == nil { target = try read(candidate.id) }
                        if entries[slot].source == nil {
                            if entries[slot].data == nil { entries[slot].data = try read(base.id) }
                            entries[slot].source = DeltaSource(entries[slot].data!)
                        }
                        guard let delta = entries[slot].source!.delta(to: target!, maximumSize: limit) else { continue }
                        if let best, delta.count == best.delta.count, baseDepth + 1 >= best.depth { continue }
                        best = (slot, delta, baseDepth + 1)
                    }
                    if let best {
                        let bytes = try deflater.deflateWhole(best.delta[...])
                        let found = PackWriter.Found(
                            base: candidates[entries[best.slot].index].id, size: best.delta.count,
                            compressed: keep(bytes.count) ? bytes : nil)
                        lock.withLock { _ in results[index] = found }
                    }
                    advance()
                }
                let entryDepth = best?.depth ?? 0
                if let best {
                    // The base that served goes to the newest end of the window, to stay longest.
                    let base = entries.remove(at: best.slot)
                    entries.append(base)
                    if entryDepth >= maximumDepth { continue }
                }
                entries.append(WindowEntry(index: index, data: target, source: nil, depth: entryDepth))
                if entries.count > window { entries.removeFirst() }
            }
        } catch {
            lock.withLock { _ in if failure == nil { failure = error } }
        }
        lock.withLock { _ in finishedThreads += 1 }
    }

    private func keep(_ bytes: Int) -> Bool {
        lock.withLock { _ in
            guard cached + bytes <= PackWriter.deltaCacheBytes else { return false }
            cached += bytes
            return true
        }
    }

    private var finishedThreads = 0

    private func advance() {
        lock.withLock { _ in done += 1 }
    }

    /// Reports the search's progress on the calling thread until `threads` searches ended:
    /// each percentage reached, as git's display shows them, a little late.
    func report(threads searching: Int) {
        let pause = OneShotSignal()
        var reported = 0
        while true {
            let (count, ended) = lock.withLock { _ in (done, finishedThreads == searching) }
            if let progress, count > reported {
                for value in (reported + 1)...count {
                    let now = value * 100 / max(1, total)
                    if now != percent {
                        percent = now
                        progress(.compressing(completed: value, total: total, threads: threads))
                    }
                }
            }
            reported = count
            if ended { break }
            _ = pause.wait(timeout: .milliseconds(10))
        }
    }
}
