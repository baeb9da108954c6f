/// A delta resolved to an object: its entry index and its name.
struct ResolvedDelta: Sendable {
    var index: Int32
    var id: ObjectID
}

/// Resolves every delta that hangs, directly or through other deltas, off one base object, on one
/// thread. Walks the tree depth first with an explicit stack (deep chains never recurse), keeps the
/// data of the bases still needed within a byte budget, and rebuilds a dropped base from the
/// nearest kept one below it, re-reading entries from the pack.
final class DeltaTreeResolver {
    private struct Frame {
        var index: Int32
        var range: Range<UInt64>
        var type: ObjectType
        var data: [UInt8]?
        var nextOffsetChild: Int
        var offsetChildrenEnd: Int
        var nextReferenceChild: Int
        var referenceChildrenEnd: Int

        var hasMoreChildren: Bool {
            nextOffsetChild < offsetChildrenEnd || nextReferenceChild < referenceChildrenEnd
        }
    }

    private let plan: DeltaResolutionPlan
    private let file: File
    private let inflater: Inflater
    private let progress: ProgressCounter?
    /// The deltas this resolver has resolved since ``takeResolved()`` last emptied the list.
    private(set) var resolved: [ResolvedDelta] = []

    private var stack: [Frame] = []
    private var cachedBytes = 0
    /// No frame below this one holds data that may be dropped.
    private var evictionStart = 0

    private let links: LinkCollector?
    private var linkBatch: [ObjectID] = []

    init(plan: DeltaResolutionPlan, progress: ProgressCounter?, links: LinkCollector? = nil) throws {
        self.plan = plan
        self.progress = progress
        self.links = links
        file = try File.openForReading(plan.packPath)
        inflater = try Inflater()
    }

    /// Resolves all deltas based on entry `root`, a whole object of `type` at `range` in the pack
    /// whose name is `id`. `data` is its content if the caller has it already.
    func resolveTree(root: Int32, type: ObjectType, id: ObjectID, range: Range<UInt64>, data: [UInt8]?) throws {
        stack.removeAll(keepingCapacity: true)
        cachedBytes = 0
        evictionStart = 0
        let rootData = try data ?? readEntry(range).data
        push(index: root, id: id, range: range, type: type, data: rootData)
        while let top = stack.indices.last {
            guard stack[top].hasMoreChildren else {
                cachedBytes -= stack[top].data?.count ?? 0
                stack.removeLast()
                evictionStart = min(evictionStart, stack.count)
                continue
            }
            let child: Int32
            if stack[top].nextOffsetChild < stack[top].offsetChildrenEnd {
                child = plan.offsetChildren[stack[top].nextOffsetChild].delta
                stack[top].nextOffsetChild += 1
            } else {
                child = plan.referenceChildren[stack[top].nextReferenceChild].delta
                stack[top].nextReferenceChild += 1
            }
            let base = try dataOfFrame(top)
            if !stack[top].hasMoreChildren {
                // The last child: the base is needed no more, except to rebuild a dropped descendant.
                cachedBytes -= base.count
                stack[top].data = nil
            }
            let childRange = plan.range(of: Int(child))
            let result = try applyDelta(at: childRange, to: base)
            let childID: ObjectID
            do {
                childID = try ObjectID.of(type: stack[top].type, data: result[...])
            } catch {
                throw PackError(offset: childRange.lowerBound, .sha1CollisionAttack(error.safeHash))
            }
            resolved.append(ResolvedDelta(index: child, id: childID))
            if let links {
                links.collect(type: stack[top].type, id: childID, data: result, into: &linkBatch)
                if linkBatch.count >= 4096 { flushLinks() }
            }
            progress?.advance()
            push(index: child, id: childID, range: childRange, type: stack[top].type, data: result)
        }
    }

    /// Hands the links found so far to the collector.
    func flushLinks() {
        links?.record(linkBatch)
        linkBatch.removeAll(keepingCapacity: true)
    }

    /// Returns the deltas resolved so far and forgets them.
    func takeResolved() -> [ResolvedDelta] {
        defer { resolved.removeAll() }
        return resolved
    }

    /// Pushes a frame for an object if anything is based on it.
    private func push(index: Int32, id: ObjectID, range: Range<UInt64>, type: ObjectType, data: [UInt8]) {
        let offsetChildren = plan.offsetChildren(of: index)
        let referenceChildren = plan.referenceChildren(of: id)
        guard !offsetChildren.isEmpty || !referenceChildren.isEmpty else { return }
        stack.append(
            Frame(
                index: index, range: range, type: type, data: data,
                nextOffsetChild: offsetChildren.lowerBound, offsetChildrenEnd: offsetChildren.upperBound,
                nextReferenceChild: referenceChildren.lowerBound, referenceChildrenEnd: referenceChildren.upperBound))
        cachedBytes += data.count
        evictIfNeeded(keeping: stack.count - 1)
    }

    /// The data of frame `position`, rebuilt from the nearest frame below that still has its data
    /// (or from the pack) if it was dropped.
    private func dataOfFrame(_ position: Int) throws -> [UInt8] {
        if let data = stack[position].data { return data }
        var start = position - 1
        while start >= 0 && stack[start].data == nil { start -= 1 }
        var data: [UInt8]
        if start >= 0 {
            data = stack[start].data!
        } else {
            start = 0
            data = try readEntry(stack[0].range).data
        }
        var level = start + 1
        while level <= position {
            data = try applyDelta(at: stack[level].range, to: data)
            level += 1
        }
        if stack[position].hasMoreChildren {
            stack[position].data = data
            cachedBytes += data.count
            evictionStart = min(evictionStart, position)
            evictIfNeeded(keeping: position)
        }
        return data
    }

    /// Drops cached data from the bottom of the stack up until the cache fits its budget, never
    /// the frame at `keeping`.
    private func evictIfNeeded(keeping: Int) {
        while cachedBytes > plan.cacheLimitPerThread && evictionStart < stack.count {
            if evictionStart != keeping, let data = stack[evictionStart].data {
                cachedBytes -= data.count
                stack[evictionStart].data = nil
            }
            if evictionStart == keeping { break }
            evictionStart += 1
        }
    }

    private func applyDelta(at range: Range<UInt64>, to base: [UInt8]) throws -> [UInt8] {
        let delta = try readEntry(range).data
        do {
            return try Delta.apply(delta[...], to: base[...])
        } catch {
            throw PackError(offset: range.lowerBound, .badDelta(error))
        }
    }

    /// Reads and inflates the entry at `range` of the pack.
    private func readEntry(_ range: Range<UInt64>) throws -> (header: PackEntryHeader, data: [UInt8]) {
        try PackEntryReading.read(range, of: file, with: inflater)
    }
}
