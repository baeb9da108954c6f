/// A delta resolved to an object: its entry index and its name.
struct ResolvedDelta: Sendable {
    var index: Int32
    var id: ObjectID
}

/// Resolves every delta that hangs, directly or through other deltas, off one base object, on one
/// thread. Walks the tree depth first with an explicit stack (deep chains never recurse), and does
/// the work of each delta once, so the time is linear in the number of deltas, whatever the shape
/// of the tree:
///
/// - Each delta is claimed in a ``OnceFlags`` shared by every resolver of the pack before it is
///   resolved; a delta reached a second time (a reference delta whose base name turns up again,
///   say because a delta's result is its own base) fails the pack rather than looping.
/// - A child is made from its parent's data, which stays in memory while the parent has children
///   left. The children of an object are taken with the largest offset-delta subtree last (the
///   plan sorts them so), and the parent's data is let go before that last child, so along the
///   stack only a logarithmic number of frames hold data in a balanced tree and one in a chain.
/// - When the data held still exceeds the byte budget, the lowest frames' data is written to a
///   spill file (once) and read back when the next child needs it, rather than rebuilt from the
///   root of the tree.
final class DeltaTreeResolver {
    private struct Frame {
        var index: Int32
        var id: ObjectID
        var type: ObjectType
        var data: [UInt8]?
        /// Where the data was written in the spill file when it was first dropped from memory.
        var spilled: Range<Int64>?
        var nextOffsetChild: Int
        var offsetChildrenEnd: Int
        var nextReferenceChild: Int
        var referenceChildrenEnd: Int

        var hasMoreChildren: Bool {
            nextOffsetChild < offsetChildrenEnd || nextReferenceChild < referenceChildrenEnd
        }
    }

    private let plan: DeltaResolutionPlan
    private let claims: OnceFlags
    private let file: File
    /// Reads the entries: a tree's entries mostly lie near one another in the pack.
    private let window: PackReadWindow
    private let inflater: Inflater
    /// libdeflate, for whole objects (the first pass has already had zlib read them).
    private let wholeInflater: WholeInflater
    private let progress: ProgressCounter?
    /// The deltas this resolver has resolved since ``takeResolved()`` last emptied the list (or
    /// ``handOff`` took them). It has room for ``handOffCount`` and two batches more from the
    /// start, so with ``handOff`` set it never grows (a batch named past the count doubled it to 8,192
    /// names, 0.47 MB a thread at 60 bytes a name).
    private(set) var resolved: [ResolvedDelta] = []
    /// Takes the resolved deltas whenever ``handOffCount`` of them wait, within a tree too: one
    /// tree can hold most of a pack's deltas (swift-nio's largest, 17,000), whose list would
    /// otherwise be held, doubling as it grows, until the tree is done. Nil: the list grows until
    /// ``takeResolved()``.
    var handOff: (([ResolvedDelta]) -> Void)?
    /// How many resolved names wait before ``handOff`` takes them: a lock taken every 1,024
    /// deltas costs nothing measurable, and 1,024 names are 60 KB a thread.
    static let handOffCount = 1024

    private var stack: [Frame] = []
    private var cachedBytes = 0
    /// No frame below this one holds data that may be dropped.
    private var evictionStart = 0
    /// An unlinked file in the pack's directory for base data that did not fit the budget, made
    /// when first needed.
    private var spillFile: File?
    private var spillEnd: Int64 = 0
    /// The deltas applied and the bytes spilled since the resolver was made.
    private(set) var statistics = DeltaResolutionStatistics()

    private let links: LinkCollector?
    private var linkBatch: LinkBatch = []

    /// How results are named (see ``Naming``).
    private let naming: Naming
    /// The results waiting to be named, with their entries.
    private var hashBatch: ObjectHashBatch
    private var batchEntries: [(index: Int32, type: ObjectType, data: [UInt8])] = []
    /// A batch is named once it holds this many objects or bytes; larger results are named alone.
    /// The results wait in memory until then. With deferred children the batch is smaller still:
    /// each naming pushes the results that have children as frames, which keep their data until
    /// those children are taken, so the batch size sets how much waits on the stack. The sizes
    /// were chosen by measurement (Documentation/Performance.md, "Batch sizes"); the bytes are
    /// sized to the pack (``PackMemorySizing``).
    private let batchObjects: Int
    private let batchBytes: Int
    static let batchLargestObject = 1 << 20

    /// How a resolver names the objects it makes.
    enum Naming {
        /// One by one, each as it is made, and a tree is done when ``resolveTree(root:type:id:range:data:)``
        /// returns: the order that decides which error a broken pack fails with.
        case inOrder
        /// In batches (see ``ObjectHashBatch``), each result's children taken at once: for packs in
        /// which nothing is based on an object by name, so no child waits for a parent's name. The
        /// order of the work is that of `inOrder`.
        case batched
        /// In batches too, for packs with reference deltas: a result waits in the batch, and what
        /// is based on it (found by its name) is resolved once the batch is named, while the
        /// resolver goes on with other objects and other trees. Call ``finishPending()`` after the
        /// last tree.
        case batchedDeferringChildren
    }

    /// Makes a resolver reading the pack of `plan`. `claims` has a flag for each entry of the plan
    /// and is shared by every resolver of the pack. With `inOrder`, objects are named one by one
    /// in the order that decides errors; otherwise in batches where the pack allows.
    init(
        plan: DeltaResolutionPlan, claims: OnceFlags, progress: ProgressCounter?, links: LinkCollector? = nil,
        inOrder: Bool = false
    ) throws {
        precondition(claims.count >= plan.offsets.count)
        self.plan = plan
        self.claims = claims
        self.progress = progress
        self.links = links
        naming = inOrder ? .inOrder : plan.referenceChildren.isEmpty ? .batched : .batchedDeferringChildren
        batchObjects = naming == .batchedDeferringChildren ? 32 : 64
        batchBytes = PackMemorySizing.hashBatchBytes(
            packBytes: plan.endOffset, deferringChildren: naming == .batchedDeferringChildren)
        hashBatch = ObjectHashBatch(format: plan.format)
        file = try File.openForReading(plan.packPath)
        window = PackReadWindow(file: file, end: plan.endOffset)
        inflater = try Inflater()
        wholeInflater = try WholeInflater()
        resolved.reserveCapacity(resolvedRoom)
    }

    /// Resolves all deltas based on entry `root`, a whole object of `type` at `range` in the pack
    /// whose name is `id`. `data` is its content if the caller has it already.
    /// With ``Naming/batchedDeferringChildren``, the parts of the tree based on results still
    /// waiting in the batch are resolved later.
    func resolveTree(root: Int32, type: ObjectType, id: ObjectID, range: Range<UInt64>, data: [UInt8]?) throws {
        stack.removeAll(keepingCapacity: true)
        cachedBytes = 0
        evictionStart = 0
        defer { emptySpill() }
        let rootData = try data ?? readEntry(range).data
        try push(index: root, id: id, type: type, data: rootData)
        try runStack()
    }

    /// Resolves what is based on the results still waiting in the batch, and on theirs, until
    /// nothing waits; call after the last tree (nothing waits unless children are deferred).
    func finishPending() throws {
        defer { emptySpill() }
        while !batchEntries.isEmpty {
            handOffIfDue()
            try nameBatch()
            try runStack()
        }
    }

    /// Resolves depth first from the frames on the stack until it is empty.
    private func runStack() throws {
        while let top = stack.indices.last {
            handOffIfDue()
            guard stack[top].hasMoreChildren else {
                cachedBytes -= stack[top].data?.count ?? 0
                stack.removeLast()
                evictionStart = min(evictionStart, stack.count)
                continue
            }
            // Reference children first: their subtrees' sizes are unknown until they are resolved,
            // while the offset children come smallest subtree first, the largest last.
            let child: Int32
            if stack[top].nextReferenceChild < stack[top].referenceChildrenEnd {
                child = plan.referenceChildren[stack[top].nextReferenceChild].delta
                stack[top].nextReferenceChild += 1
            } else {
                child = plan.offsetChildren[stack[top].nextOffsetChild].delta
                stack[top].nextOffsetChild += 1
            }
            let childRange = plan.range(of: Int(child))
            guard claims.claim(Int(child)) else {
                throw PackError(offset: childRange.lowerBound, .deltaAlreadyResolved(base: try idOfFrame(top)))
            }
            let base = try dataOfFrame(top)
            if !stack[top].hasMoreChildren, let data = stack[top].data {
                // The last child: the base is needed no more.
                cachedBytes -= data.count
                stack[top].data = nil
            }
            let result = try applyDelta(at: childRange, to: base)
            let type = stack[top].type
            let childID: ObjectID
            if naming != .inOrder && result.count <= Self.batchLargestObject {
                // Named with others later; nothing needs the name before then (with deferred
                // children, nothing goes on from this result until then).
                childID = plan.format.zeroID
                hashBatch.append(type: type, data: result)
                batchEntries.append((child, type, result))
                if hashBatch.count >= batchObjects || hashBatch.bytes >= batchBytes { try nameBatch() }
                if naming == .batchedDeferringChildren {
                    progress?.advance()
                    continue
                }
            } else {
                do {
                    childID = try ObjectID.of(type: type, data: result[...], format: plan.format)
                } catch {
                    throw PackError(offset: childRange.lowerBound, .sha1CollisionAttack(error.safeHash))
                }
                named(child, type: type, id: childID, data: result)
            }
            progress?.advance()
            try push(index: child, id: childID, type: type, data: result)
        }
    }

    /// Gives the resolved names to ``handOff`` once ``handOffCount`` of them wait, keeping the
    /// list's room.
    private var resolvedRoom: Int { Self.handOffCount + 2 * batchObjects }

    private func handOffIfDue() {
        guard resolved.count >= Self.handOffCount, let handOff else { return }
        handOff(resolved)
        resolved.removeAll(keepingCapacity: true)
    }

    /// Records a resolved delta's name, and the links of its result.
    private func named(_ index: Int32, type: ObjectType, id: ObjectID, data: [UInt8]) {
        resolved.append(ResolvedDelta(index: index, id: id))
        if let links {
            links.collect(type: type, id: id, data: data, into: &linkBatch)
            if linkBatch.count >= LinkCollector.batchCount { flushLinks() }
        }
    }

    /// Names the results waiting in the batch; with deferred children, pushes a frame for each
    /// result something is based on.
    private func nameBatch() throws {
        guard !batchEntries.isEmpty else { return }
        let results = hashBatch.hashAll()
        let entries = batchEntries
        batchEntries.removeAll(keepingCapacity: true)
        for (entry, result) in zip(entries, results) {
            switch result {
            case .success(let id):
                named(entry.index, type: entry.type, id: id, data: entry.data)
                if naming == .batchedDeferringChildren {
                    try push(index: entry.index, id: id, type: entry.type, data: entry.data)
                }
            case .failure(let error):
                let offset = plan.range(of: Int(entry.index)).lowerBound
                throw PackError(offset: offset, .sha1CollisionAttack(error.safeHash))
            }
        }
    }

    /// The name of the object of frame `position`, naming the batch first if it waits there.
    private func idOfFrame(_ position: Int) throws -> ObjectID {
        let index = stack[position].index
        guard stack[position].id.isZero, batchEntries.contains(where: { $0.index == index }) else {
            return stack[position].id
        }
        try nameBatch()
        return resolved.last { $0.index == index }?.id ?? stack[position].id
    }

    /// Hands the links found so far to the collector.
    func flushLinks() {
        links?.record(linkBatch)
        LinkCollector.empty(&linkBatch)
    }

    /// Returns the deltas resolved so far and forgets them; names those still waiting in a batch
    /// unless their children are deferred (see ``finishPending()``).
    func takeResolved() throws -> [ResolvedDelta] {
        if naming != .batchedDeferringChildren { try nameBatch() }
        let taken = resolved
        resolved = []
        resolved.reserveCapacity(resolvedRoom)
        return taken
    }

    /// Pushes a frame for an object if anything is based on it.
    private func push(index: Int32, id: ObjectID, type: ObjectType, data: [UInt8]) throws {
        let offsetChildren = plan.offsetChildren(of: index)
        let referenceChildren = plan.referenceChildren(of: id)
        guard !offsetChildren.isEmpty || !referenceChildren.isEmpty else { return }
        stack.append(
            Frame(
                index: index, id: id, type: type, data: data, spilled: nil,
                nextOffsetChild: offsetChildren.lowerBound, offsetChildrenEnd: offsetChildren.upperBound,
                nextReferenceChild: referenceChildren.lowerBound, referenceChildrenEnd: referenceChildren.upperBound))
        cachedBytes += data.count
        try evictIfNeeded(keeping: stack.count - 1)
    }

    /// The data of frame `position`, read back from the spill file if it was dropped; kept in
    /// memory again while the frame has children left.
    private func dataOfFrame(_ position: Int) throws -> [UInt8] {
        if let data = stack[position].data { return data }
        guard let spilled = stack[position].spilled, let spillFile else {
            preconditionFailure("frame \(position) dropped its data without spilling it")
        }
        let data = try spillFile.read(at: spilled.lowerBound, count: Int(spilled.count))
        guard data.count == spilled.count else {
            throw PackError(offset: plan.range(of: Int(stack[position].index)).lowerBound, .packChangedOnDisk)
        }
        if stack[position].hasMoreChildren {
            stack[position].data = data
            cachedBytes += data.count
            evictionStart = min(evictionStart, position)
            try evictIfNeeded(keeping: position)
        }
        return data
    }

    /// Drops cached data from the bottom of the stack up until the cache fits its budget, never
    /// the frame at `keeping`, spilling each frame's data the first time it is dropped.
    private func evictIfNeeded(keeping: Int) throws {
        while cachedBytes > plan.cacheLimitPerThread && evictionStart < stack.count {
            if evictionStart != keeping, let data = stack[evictionStart].data {
                if stack[evictionStart].spilled == nil { stack[evictionStart].spilled = try spill(data) }
                cachedBytes -= data.count
                stack[evictionStart].data = nil
            }
            if evictionStart == keeping { break }
            evictionStart += 1
        }
    }

    /// Appends `data` to the spill file; returns where it went.
    private func spill(_ data: [UInt8]) throws -> Range<Int64> {
        if spillFile == nil {
            let made = try File.createTemporary(in: FileSystem.parentDirectory(of: plan.packPath), prefix: "tmp_spill_")
            // Unlinked at once: nothing is left behind, however the process ends.
            try FileSystem.remove(made.path)
            spillFile = made
        }
        let start = spillEnd
        try spillFile!.write(data[...], at: start)
        spillEnd += Int64(data.count)
        statistics.bytesSpilled += Int64(data.count)
        return start..<spillEnd
    }

    /// Frees the spill file's space once a tree is done.
    private func emptySpill() {
        guard let spillFile, spillEnd > 0 else { return }
        try? spillFile.truncate(to: 0)
        spillEnd = 0
    }

    private func applyDelta(at range: Range<UInt64>, to base: [UInt8]) throws -> [UInt8] {
        // zlib, not libdeflate: the first pass had libdeflate only find where a delta's stream
        // ends, so this is zlib's first reading of it, which decides whether it is valid.
        let delta = try PackEntryReading.read(
            range, of: file, format: plan.format, with: inflater, wholeRange: true, window: window
        ).data
        statistics.deltasApplied += 1
        do {
            return try Delta.applyNative(delta[...], to: base[...])
        } catch {
            throw PackError(offset: range.lowerBound, .badDelta(error))
        }
    }

    /// Reads and inflates the whole object at `range` of the pack (its stream read by zlib in the
    /// first pass).
    private func readEntry(_ range: Range<UInt64>) throws -> (header: PackEntryHeader, data: [UInt8]) {
        try PackEntryReading.read(
            range, of: file, format: plan.format, with: inflater, whole: wholeInflater, window: window)
    }

}
