import GitWire
import GitWireTestSupport
import Testing

/// Timers leave the loop when invalidated, and the exchange engine keeps one timer per exchange.
@Suite("Run loop timers")
struct RunLoopTimerTests {
    @Test func invalidatedTimersLeaveTheLoopAtOnce() throws {
        let loop = try EpollRunLoop()
        let timers = (0..<1000).map { index in loop.addTimer(after: .seconds(3600 + index)) { _ in } }
        #expect(loop.pendingTimerCount == 1000)
        for timer in timers.shuffled() { timer.invalidate() }
        #expect(loop.pendingTimerCount == 0)
        // Nothing is left that could make anything happen: run returns at once.
        let start = ContinuousClock.now
        loop.run()
        #expect(ContinuousClock.now - start < .seconds(60))
    }

    @Test func timersFireInOrderAfterRemovalsFromTheMiddle() throws {
        let loop = try EpollRunLoop()
        var fired: [Int] = []
        let timers = (0..<50).map { index in
            loop.addTimer(after: .milliseconds(50 - index)) { _ in fired.append(index) }
        }
        for index in stride(from: 0, to: 50, by: 3) { timers[index].invalidate() }
        loop.run()
        let expected = (0..<50).filter { $0 % 3 != 0 }.reversed()
        #expect(fired == Array(expected))
        #expect(loop.pendingTimerCount == 0)
    }

    @Test func anExchangeLeavesNoTimerBehind() throws {
        let daemon = TestRepositories.shared.daemon
        let remote = try Remote(daemon.url("big.git"), timeout: .seconds(30))
        let loop = try EpollRunLoop()
        var refs = 0
        var timerCounts: Set<Int> = []
        var completed = false
        let onRef: (Ref) -> Void = { _ in
            refs += 1
            timerCounts.insert(loop.pendingTimerCount)
        }
        remote.lsRemote(in: loop, onRef: onRef) { result in completed = (try? result.get()) != nil }
        loop.run(until: .now + .seconds(30))
        #expect(completed)
        #expect(refs > 1000)
        // One deadline timer while the refs arrive, however many reads they take.
        #expect(timerCounts == [1])
        #expect(loop.pendingTimerCount == 0)
    }
}
