import Synchronization

/// Resolves all the deltas of a pack that hang off whole objects in it, on several threads: each
/// thread takes the next base from a shared counter and resolves its whole tree.
enum ParallelDeltaResolver {
    /// Resolves the trees of every root in `plan` on up to `threads` threads and returns the
    /// resolved deltas. The first error any thread meets stops all of them and is thrown.
    static func resolve(plan: DeltaResolutionPlan, threads: Int, progress: ProgressCounter?) throws -> [ResolvedDelta] {
        let shared = SharedState()
        let count = max(1, min(threads, plan.roots.count))
        WorkerThreads.run(count: count) { _ in
            do {
                let resolver = try DeltaTreeResolver(plan: plan, progress: progress)
                while !shared.stopped.load(ordering: .relaxed) {
                    let next = shared.nextRoot.add(1, ordering: .relaxed).oldValue
                    guard next < plan.roots.count else { break }
                    let root = plan.roots[next]
                    let type = ObjectType(rawValue: plan.table.typeNumbers[Int(root)])!
                    try resolver.resolveTree(
                        root: root, type: type, id: plan.table.ids[Int(root)], range: plan.table.range(of: Int(root)),
                        data: nil)
                }
                let resolved = resolver.resolved
                shared.results.withLock { $0.append(contentsOf: resolved) }
            } catch {
                shared.stopped.store(true, ordering: .relaxed)
                shared.failure.withLock { if $0 == nil { $0 = error } }
            }
        }
        if let failure = shared.failure.withLock({ $0 }) { throw failure }
        return shared.results.withLock { $0 }
    }
}

/// What the resolving threads share: the next root to take, the results, and the first failure.
private final class SharedState: Sendable {
    let nextRoot = Atomic<Int>(0)
    let stopped = Atomic<Bool>(false)
    let results = Mutex<[ResolvedDelta]>([])
    let failure = Mutex<(any Error)?>(nil)
}
