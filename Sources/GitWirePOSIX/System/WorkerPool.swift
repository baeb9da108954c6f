/// The process's one pool of worker threads, for blocking work a run loop must not do on its own
/// thread: host lookups, and what a fetch does after the transfer (resolving deltas, writing the
/// index, updating refs). Threads start as work arrives, at most `limit` at once, and end when no
/// work is left, so an idle process keeps no worker thread. Work waits its turn in the order it
/// came when every thread is busy.
package final class WorkerPool: Sendable {
    /// The shared pool.
    package static let shared = WorkerPool(limit: 16)

    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var next = 0
        var threads = 0
        /// Threads running a job now; the others are about to take the next one.
        var busy = 0
    }

    /// The most threads it runs at once.
    package let limit: Int
    private let state = Locked(State())

    /// A pool of at most `limit` threads (at least 1).
    package init(limit: Int) { self.limit = max(1, limit) }

    /// The number of threads running now (for tests).
    package var threadCount: Int { state.withLock { $0.threads } }

    /// Runs `job` on a worker thread: an idle one takes it, or a new one while fewer than `limit`
    /// run; else it waits for one to be done.
    package func submit(_ job: @escaping @Sendable () -> Void) {
        let needsThread = state.withLock { state in
            state.jobs.append(job)
            // A thread that is not busy takes the next job: a new one only for jobs beyond those.
            guard state.threads < limit, state.jobs.count - state.next > state.threads - state.busy else {
                return false
            }
            state.threads += 1
            return true
        }
        guard needsThread else { return }
        do {
            try startDetachedThread { self.drain() }
        } catch {
            // No thread to be had: do the work here rather than leave it queued with no taker.
            drain()
        }
    }

    private func drain() {
        var ranOne = false
        while let job = state.withLock({ state -> (@Sendable () -> Void)? in
            if ranOne { state.busy -= 1 }
            guard state.next < state.jobs.count else {
                state.jobs.removeAll()
                state.next = 0
                state.threads -= 1
                return nil
            }
            state.busy += 1
            defer { state.next += 1 }
            return state.jobs[state.next]
        }) {
            job()
            ranOne = true
        }
    }
}
