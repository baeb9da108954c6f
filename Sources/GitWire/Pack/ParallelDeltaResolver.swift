import Synchronization

/// Resolves all the deltas of a pack that hang off whole objects in it, on several threads: each
/// thread takes the next base from a shared counter and resolves its whole tree.
enum ParallelDeltaResolver {
    /// Resolves the trees of every root in `plan` on up to `threads` threads, writing the name of
    /// each resolved delta into `ids` at its entry index; returns `ids` and what the threads did
    /// together. Each delta is claimed in `claims` before it is resolved. The first error any
    /// thread meets stops all of them. Which error that is depends on how the threads happened to
    /// interleave (two bases of one name reach the same reference delta, and either may claim it
    /// first), and on the order batched naming takes the work in, so a failed pack is resolved
    /// once more on one thread, roots in order, objects named one by one, and the error met first
    /// there is thrown: the same pack always fails the same way.
    static func resolve(
        plan: DeltaResolutionPlan, claims: OnceFlags, threads: Int, progress: ProgressCounter?,
        ids: consuming ObjectIDArray, links: LinkCollector? = nil
    ) throws -> (ids: ObjectIDArray, statistics: DeltaResolutionStatistics) {
        let shared = SharedState(ids: ids)
        let count = max(1, min(threads, plan.roots.count))
        WorkerThreads.run(count: count) { _ in
            do {
                let resolver = try DeltaTreeResolver(plan: plan, claims: claims, progress: progress, links: links)
                resolver.handOff = { shared.record($0) }
                while !shared.stopped.load(ordering: .relaxed) {
                    let next = shared.nextRoot.add(1, ordering: .relaxed).oldValue
                    guard next < plan.roots.count else { break }
                    try resolver.resolveTree(
                        root: plan.roots[next], type: plan.rootTypes[next], id: plan.rootIDs[next],
                        range: plan.range(of: Int(plan.roots[next])), data: nil)
                    if resolver.resolved.count >= DeltaTreeResolver.handOffCount {
                        shared.record(try resolver.takeResolved())
                    }
                }
                if !shared.stopped.load(ordering: .relaxed) { try resolver.finishPending() }
                shared.record(try resolver.takeResolved())
                resolver.flushLinks()
                shared.statistics.withLock { $0.add(resolver.statistics) }
            } catch {
                shared.stopped.store(true, ordering: .relaxed)
                shared.failure.withLock { if $0 == nil { $0 = error } }
            }
        }
        if let failure = shared.failure.withLock({ $0 }) {
            guard count > 1 || !plan.referenceChildren.isEmpty else { throw failure }
            throw firstFailureInOrder(plan: plan) ?? failure
        }
        let ids = shared.ids.withLock { ids in
            var taken = ObjectIDArray(format: ids.format)
            swap(&taken, &ids)
            return taken
        }
        return (ids, shared.statistics.withLock { $0 })
    }

    /// The error met first when the trees of `plan` are resolved on one thread in the order of
    /// its roots, objects named one by one, with claims of their own; nil if they all resolve.
    private static func firstFailureInOrder(plan: DeltaResolutionPlan) -> (any Error)? {
        do {
            let resolver = try DeltaTreeResolver(
                plan: plan, claims: OnceFlags(count: plan.offsets.count), progress: nil, links: nil, inOrder: true)
            for next in plan.roots.indices {
                try resolver.resolveTree(
                    root: plan.roots[next], type: plan.rootTypes[next], id: plan.rootIDs[next],
                    range: plan.range(of: Int(plan.roots[next])), data: nil)
                if resolver.resolved.count >= DeltaTreeResolver.handOffCount { _ = try resolver.takeResolved() }
            }
            _ = try resolver.takeResolved()
            return nil
        } catch {
            return error
        }
    }
}

/// What the resolving threads share: the next root to take, the names found so far, and the
/// first failure.
private final class SharedState: Sendable {
    let nextRoot = Atomic<Int>(0)
    let stopped = Atomic<Bool>(false)
    let ids: Locked<ObjectIDArray>
    let failure = Locked<(any Error)?>(nil)
    let statistics = Locked(DeltaResolutionStatistics())

    init(ids: consuming ObjectIDArray) { self.ids = Locked(ids) }

    /// Writes a batch of resolved names into their entries.
    func record(_ batch: [ResolvedDelta]) {
        ids.withLock { ids in
            for delta in batch { ids[Int(delta.index)] = delta.id }
        }
    }
}
