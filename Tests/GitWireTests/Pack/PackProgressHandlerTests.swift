import Foundation
import GitWireTestSupport
import Testing

@testable import GitWire

/// The pack progress handler is the caller's code: it is called one report at a time, counts
/// never going backwards, but never under a lock, so a handler that waits cannot hold up a
/// thread that only reports progress (the worker threads resolving deltas).
@Suite("Pack progress handler")
struct PackProgressHandlerTests {
    @Test func aWaitingHandlerHoldsUpNoOtherReporter() {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let calls = Locked<[Int]>([])
        let inHandler = Locked(0)
        let overlapped = Locked(false)
        let counter = ProgressCounter(phase: .resolving, total: 2) { progress in
            inHandler.withLock { count in
                count += 1
                if count > 1 { overlapped.withLock { $0 = true } }
            }
            calls.withLock { $0.append(progress.completed) }
            if progress.completed == 1 {
                entered.signal()
                _ = release.wait(timeout: .now() + .seconds(60))
            }
            inHandler.withLock { $0 -= 1 }
        }
        let first = DispatchSemaphore(value: 0)
        Thread {
            counter.advance()  // 50%: the handler waits until released
            first.signal()
        }.start()
        #expect(entered.wait(timeout: .now() + .seconds(60)) == .success)
        // Another thread's report (100%) while the handler waits: it must come back at once,
        // not wait for the handler.
        let second = DispatchSemaphore(value: 0)
        Thread {
            counter.advance()
            second.signal()
        }.start()
        let secondReturned = second.wait(timeout: .now() + .seconds(20).dispatchScaled) == .success
        #expect(secondReturned, "a report waited for another thread's handler")
        release.signal()
        #expect(first.wait(timeout: .now() + .seconds(60)) == .success)
        if !secondReturned { _ = second.wait(timeout: .now() + .seconds(60)) }
        // The waiting thread handed the queued report on before it returned.
        #expect(calls.withLock { $0 } == [1, 2])
        #expect(!overlapped.withLock { $0 }, "one call at a time")
    }
}

extension DispatchTimeInterval {
    /// This interval, ``testSlowness`` times as long.
    fileprivate var dispatchScaled: DispatchTimeInterval {
        guard case .seconds(let seconds) = self else { return self }
        return .seconds(scaledForSlowRuns(seconds: seconds))
    }
}
