import GitWireCore
import Synchronization

/// The thread-safe side of an ``EpollRunLoop``: any thread may post work to the loop or stop it.
public final class RunLoopHandle: Sendable {
    package let wakeup: EventFD
    private let state = Locked(State())
    /// The thread inside the loop's `run`, 0 when none is.
    private let runningThread = Atomic<UInt>(0)

    package struct State {
        var posted: [@Sendable () -> Void] = []
        var stopRequested = false
        var isFinished = false
    }

    package init() throws { wakeup = try EventFD() }

    /// Runs `work` on the loop's thread during its next iteration. Returns false, without running
    /// `work`, when the loop is gone.
    @discardableResult
    public func post(_ work: @escaping @Sendable () -> Void) -> Bool {
        let accepted = state.withLock { state in
            if state.isFinished { return false }
            state.posted.append(work)
            return true
        }
        if accepted { wakeup.signal() }
        return accepted
    }

    /// Makes the loop's current (or next) `run` return after the callback it is in, if any.
    public func stop() {
        state.withLock { $0.stopRequested = true }
        wakeup.signal()
    }

    /// Whether the calling thread is the one running the loop now (inside its `run`).
    package var isRunningOnCurrentThread: Bool {
        runningThread.load(ordering: .acquiring) == currentThreadID()
    }

    /// Whether the calling thread runs the loop now, or no thread does (setting up before `run`).
    package var isRunningOnCurrentThreadOrIdle: Bool {
        let thread = runningThread.load(ordering: .acquiring)
        return thread == 0 || thread == currentThreadID()
    }

    /// Notes that the calling thread runs the loop; returns what to restore afterwards.
    package func enterRun() -> UInt { runningThread.exchange(currentThreadID(), ordering: .acquiringAndReleasing) }

    /// Notes that `run` returned.
    package func leaveRun(restoring thread: UInt) { runningThread.store(thread, ordering: .releasing) }

    /// Takes the posted work, oldest first.
    package func takePosted() -> [@Sendable () -> Void] {
        state.withLock { state in
            let work = state.posted
            state.posted.removeAll()
            return work
        }
    }

    /// Whether work is waiting to run.
    package var hasPosted: Bool { state.withLock { !$0.posted.isEmpty } }

    /// Takes a pending stop request.
    package func takeStopRequest() -> Bool {
        state.withLock { state in
            defer { state.stopRequested = false }
            return state.stopRequested
        }
    }

    /// Refuses posts from now on; returns work that was posted but never ran.
    package func finish() -> [@Sendable () -> Void] {
        state.withLock { state in
            state.isFinished = true
            defer { state.posted.removeAll() }
            return state.posted
        }
    }

    /// Atomically: if nothing is posted, refuse posts from now on and return true.
    package func finishIfIdle() -> Bool {
        state.withLock { state in
            if !state.posted.isEmpty { return false }
            state.isFinished = true
            return true
        }
    }
}
