import Foundation

/// Threads of the test process's own, for the async tests: a task executor that runs each job on
/// an idle thread of its own, starting another thread when none is idle.
///
/// Swift Testing runs synchronous tests on the concurrency pool, which has one thread per core:
/// on two cores, two tests waiting for `git` hold the whole pool, and an async test's next step
/// (a continuation resumed by a run loop, the end of a `Task.sleep`) waits behind every test not
/// yet started, for minutes. Async tests that run their bodies here (through
/// `withTaskExecutorPreference`, which their child tasks inherit) keep running while the pool
/// is busy, so their timeouts measure the code under test rather than the test runner.
public final class TestThreads: TaskExecutor, @unchecked Sendable {
    /// The one instance the tests share.
    public static let shared = TestThreads()

    private let condition = NSCondition()
    // Guarded by `condition`.
    private var jobs: [UnownedJob] = []
    private var next = 0
    /// Threads inside `condition.wait()`, or started and not yet looking for a job: each will
    /// take a job without a new thread.
    private var available = 0

    private init() {}

    /// Runs `job` on an idle thread, or on a new one when every thread is busy.
    ///
    /// A thread is started only when the jobs not yet taken outnumber the threads that will take
    /// one. (Counting threads handed a job instead, and not taking the count back when a busy
    /// thread finished first and took that job, lost one idle thread from the count each time:
    /// under ThreadSanitizer, where everything is slow and such races common, that grew to
    /// thousands of threads waiting on this condition.)
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        let startThread = jobs.count - next > available
        if startThread { available += 1 }
        condition.signal()
        condition.unlock()
        if startThread {
            let thread = Thread { [self] in work() }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    private func work() {
        condition.lock()
        while true {
            while next == jobs.count { condition.wait() }
            available -= 1
            let job = jobs[next]
            next += 1
            if next == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                next = 0
            }
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
            condition.lock()
            available += 1
        }
    }
}
