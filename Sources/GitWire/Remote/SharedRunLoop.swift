import Synchronization

/// A run loop on a background thread of its own, for the async API. The thread starts when work
/// is posted and ends when its loop has nothing left to do, so an idle process keeps no thread.
final class SharedRunLoop: Sendable {
    static let shared = SharedRunLoop()

    private let current = Mutex<RunLoopHandle?>(nil)

    /// Runs `work` on the shared loop's thread, starting the thread if there is none.
    func post(_ work: @escaping @Sendable () -> Void) throws {
        while true {
            let handle = try current.withLock { handle in
                if let handle { return handle }
                let started = try startThread()
                handle = started
                return started
            }
            if handle.post(work) { return }
            current.withLock { if $0 === handle { $0 = nil } }
        }
    }

    private func startThread() throws -> RunLoopHandle {
        nonisolated(unsafe) let loop = try EpollRunLoop()
        let handle = loop.handle
        try startDetachedThread { [self] in
            // Work posted here finds its loop with `EpollRunLoop.current()`: it must be this one.
            loop.makeCurrent()
            while true {
                loop.run()
                if handle.finishIfIdle() { break }
            }
            current.withLock { if $0 === handle { $0 = nil } }
        }
        return handle
    }
}

/// A value that lives on one run loop's thread but is named from others: only code running on
/// that thread (work posted to the loop) may touch ``value``.
final class LoopBound<Value>: @unchecked Sendable {
    var value: Value?

    init(_ value: Value? = nil) { self.value = value }
}
