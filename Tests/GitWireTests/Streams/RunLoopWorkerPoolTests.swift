import Foundation
import GitWireTestSupport
import Testing

@testable import GitWire
@testable import GitWirePOSIX

/// Counts how many jobs run at once, and the most that ever did.
private final class Overlap: Sendable {
    private let state = Locked((now: 0, most: 0, done: 0))

    func run(for duration: Duration) {
        state.withLock { state in
            state.now += 1
            state.most = max(state.most, state.now)
        }
        Thread.sleep(forTimeInterval: Double(duration.components.attoseconds) / 1e18)
        state.withLock { state in
            state.now -= 1
            state.done += 1
        }
    }

    var most: Int { state.withLock { $0.most } }
    var done: Int { state.withLock { $0.done } }
}

/// Work a run loop hands off (a fetch's delta resolution, host lookups) runs on the process's
/// one worker pool, and the loop waits for its answer without a timer of its own.
@Suite("Run loop worker pool")
struct RunLoopWorkerPoolTests {
    @Test func offLoopWorkHoldsTheLoopWithoutATimer() throws {
        let loop = try EpollRunLoop()
        let loopThread = currentThreadID()
        var answer: (value: Int, thread: UInt)?
        let work = { () -> (Int, UInt) in
            Thread.sleep(forTimeInterval: 0.05)
            return (7, currentThreadID())
        }
        runOffLoop(in: loop, work, completion: { result in answer = try? result.get() })
        // Nothing on the loop but the wait for the answer: no keep-alive timer.
        #expect(loop.pendingTimerCount == 0)
        // With nothing else to wait for, the loop still runs until the answer has come.
        loop.run()
        #expect(answer?.value == 7)
        #expect(answer.map { $0.thread != loopThread } == true)
        // Released: the loop returns at once now.
        loop.run()
    }

    @Test func offLoopJobsShareTheBoundedPool() throws {
        let loop = try EpollRunLoop()
        let overlap = Overlap()
        let jobs = WorkerPool.shared.limit * 3
        var completed = 0
        for _ in 0..<jobs {
            let work = { overlap.run(for: .milliseconds(100)) }
            runOffLoop(in: loop, work, completion: { _ in completed += 1 })
        }
        loop.run()
        #expect(completed == jobs)
        // Not a thread each: never more at once than the pool's threads.
        #expect(overlap.most <= WorkerPool.shared.limit)
    }

    @Test func aPoolRunsEveryJobOnAtMostItsLimitAndThenKeepsNoThread() throws {
        let pool = WorkerPool(limit: 3)
        let overlap = Overlap()
        for _ in 0..<12 { pool.submit { overlap.run(for: .milliseconds(20)) } }
        let deadline = ContinuousClock.now + .seconds(scaledForSlowRuns(seconds: 60))
        while (overlap.done < 12 || pool.threadCount > 0) && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(overlap.done == 12)
        #expect(overlap.most <= 3)
        #expect(overlap.most >= 1)
        #expect(pool.threadCount == 0)
    }
}
