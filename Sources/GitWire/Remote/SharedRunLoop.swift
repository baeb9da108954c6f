import Synchronization

/// A run loop on a background thread of its own, for the async API. The thread starts when work
/// is posted and ends when its loop has nothing left to do, so an idle process keeps no thread.
final class SharedRunLoop: Sendable {
    static let shared = SharedRunLoop()

    private let current = Mutex<RunLoopHandle?>(nil)

    /// Runs `work` on the shared loop's thread, with its loop, starting the thread if there is none.
    func post(_ work: @escaping @Sendable (EpollRunLoop) -> Void) throws {
        while true {
            let handle = try current.withLock { handle in
                if let handle { return handle }
                let started = try startThread()
                handle = started
                return started
            }
            if handle.post({ if let loop = try? EpollRunLoop.current() { work(loop) } }) { return }
            current.withLock { if $0 === handle { $0 = nil } }
        }
    }

    private func startThread() throws -> RunLoopHandle {
        let loop = try EpollRunLoop()
        let handle = loop.handle
        try EpollRunLoop.runOnNewThread(loop) { [self] in
            current.withLock { if $0 === handle { $0 = nil } }
        }
        return handle
    }
}
