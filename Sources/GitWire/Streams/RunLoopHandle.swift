import Synchronization

/// The thread-safe side of an ``EpollRunLoop``: any thread may post work to the loop or stop it.
public final class RunLoopHandle: Sendable {
    let wakeup: EventFD
    private let state = Mutex(State())

    struct State {
        var posted: [@Sendable () -> Void] = []
        var stopRequested = false
        var isFinished = false
    }

    init() throws { wakeup = try EventFD() }

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

    /// Takes the posted work, oldest first.
    func takePosted() -> [@Sendable () -> Void] {
        state.withLock { state in
            let work = state.posted
            state.posted.removeAll()
            return work
        }
    }

    /// Whether work is waiting to run.
    var hasPosted: Bool { state.withLock { !$0.posted.isEmpty } }

    /// Takes a pending stop request.
    func takeStopRequest() -> Bool {
        state.withLock { state in
            defer { state.stopRequested = false }
            return state.stopRequested
        }
    }

    /// Refuses posts from now on; returns work that was posted but never ran.
    func finish() -> [@Sendable () -> Void] {
        state.withLock { state in
            state.isFinished = true
            defer { state.posted.removeAll() }
            return state.posted
        }
    }

    /// Atomically: if nothing is posted, refuse posts from now on and return true.
    func finishIfIdle() -> Bool {
        state.withLock { state in
            if !state.posted.isEmpty { return false }
            state.isFinished = true
            return true
        }
    }
}
