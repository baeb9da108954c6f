import Foundation
import Testing

@testable import GitWire
@testable import GitWirePOSIX

/// Records every event it gets, and runs an optional reaction.
final class RecordingDelegate: ByteStreamDelegate {
    var events: [(String, ByteStreamEvent)] = []
    var reaction: ((ByteStream, ByteStreamEvent) -> Void)?

    func stream(_ stream: ByteStream, handle event: ByteStreamEvent) {
        events.append((stream is ByteInputStream ? "in" : "out", event))
        reaction?(stream, event)
    }

    var names: [String] { events.map { "\($0.0):\($0.1)" } }
}

@Suite("Run loop streams")
struct RunLoopStreamTests {
    @Test func eventsArriveInOrderAndOnlyAfterScheduleAndOpen() throws {
        let loop = try EpollRunLoop()
        let (a, b) = try ByteStreamPair.socketPair()
        let delegate = RecordingDelegate()
        b.input.delegate = delegate
        b.output.delegate = delegate
        try a.output.writeFully(Array("ping".utf8))
        b.schedule(in: loop)
        delegate.reaction = { stream, event in
            if event == .hasBytesAvailable, let input = stream as? ByteInputStream {
                _ = try? input.read()
            }
            if event == .endEncountered { stream.close() }
        }
        // Open already (socket pairs open at once): openCompleted is owed and delivered first.
        loop.run(until: .now + .milliseconds(100))
        a.output.close()
        loop.run(until: .now + .seconds(5))
        #expect(
            delegate.names == [
                "in:openCompleted", "out:openCompleted", "out:hasSpaceAvailable", "in:hasBytesAvailable",
                "in:hasBytesAvailable", "in:endEncountered",
            ])
        b.close()
        a.close()
    }

    @Test func aStreamThatIsNotOpenGetsNoEvents() throws {
        let loop = try EpollRunLoop()
        let listener = try ListeningSocket(host: "127.0.0.1")
        let pair = ByteStreamPair.connecting(toHost: "127.0.0.1", port: listener.address.port)
        let delegate = RecordingDelegate()
        pair.input.delegate = delegate
        pair.output.delegate = delegate
        pair.schedule(in: loop)
        loop.run(until: .now + .milliseconds(50))
        #expect(delegate.events.isEmpty)
        try pair.open()
        delegate.reaction = { _, event in if event == .hasSpaceAvailable { loop.stop() } }
        loop.run(until: .now + .seconds(10))
        #expect(delegate.names == ["in:openCompleted", "out:openCompleted", "out:hasSpaceAvailable"])
        #expect(pair.isNoDelay)
        pair.close()
    }

    @Test func connectRefusedInTheLoopIsAnErrorEvent() throws {
        let loop = try EpollRunLoop()
        // A port nothing listens on, held so that nothing can start listening on it meanwhile.
        let reserved = try ReservedPort(host: "127.0.0.1")
        let pair = ByteStreamPair.connecting(toHost: "127.0.0.1", port: reserved.port)
        let delegate = RecordingDelegate()
        pair.output.delegate = delegate
        pair.schedule(in: loop)
        try pair.output.open()
        loop.run(until: .now + .seconds(10))
        withExtendedLifetime(reserved) {}
        #expect(delegate.names == ["out:errorOccurred"])
        #expect((pair.output.error as? ConnectError)?.isRefused == true)
        pair.close()
    }

    @Test func connectTimeoutInTheLoopIsAnErrorEvent() throws {
        let loop = try EpollRunLoop()
        let listener = try ListeningSocket(host: "127.0.0.1", backlog: 0)
        var fillers: [ByteStreamPair] = []
        defer { for filler in fillers { filler.close() } }
        var sawTimeout = false
        for _ in 0..<16 where !sawTimeout {
            let pair = ByteStreamPair.connecting(
                toHost: "127.0.0.1", port: listener.address.port, connectTimeout: .milliseconds(200))
            fillers.append(pair)
            let delegate = RecordingDelegate()
            delegate.reaction = { _, _ in loop.stop() }
            pair.output.delegate = delegate
            pair.output.schedule(in: loop)
            try pair.output.open()
            loop.run(until: .now + .seconds(10))
            sawTimeout = pair.output.error is StreamTimeoutError
        }
        #expect(sawTimeout)
    }

    @Test func queuedWritesKeepTheirOrderAndNoSpaceEventsStormWhileIdle() throws {
        let loop = try EpollRunLoop()
        let (a, b) = try ByteStreamPair.socketPair()
        try a.setSocketBufferSizes(send: 4096, receive: 4096)
        let delegate = RecordingDelegate()
        a.output.delegate = delegate
        a.output.schedule(in: loop)
        let first = [UInt8](repeating: 1, count: 300_000)
        let second = [UInt8](repeating: 2, count: 300_000)
        try a.output.write(first)
        try a.output.write(second)
        #expect(a.output.queuedByteCount > 0)
        nonisolated(unsafe) let reader = b.input
        let received = Locked<Result<[UInt8], any Error>?>(nil)
        let readerDone = DispatchSemaphore(value: 0)
        let thread = Thread {
            reader.timeout = .seconds(60)
            let result = Result { try reader.readFully(600_000) }
            received.withLock { $0 = result }
            readerDone.signal()
        }
        thread.start()
        loop.run(until: .now + .seconds(10))  // returns once the queue is empty: nothing left to wait for
        #expect(a.output.queuedByteCount == 0)
        loop.run(until: .now + .milliseconds(100))
        let spaceEvents = delegate.names.filter { $0 == "out:hasSpaceAvailable" }.count
        #expect(spaceEvents == 2, "one after open, one when the queue drained: \(delegate.names)")
        // The reader gives up after its own timeout, so this wait ends either way; a failed
        // read fails the test with its error.
        #expect(readerDone.wait(timeout: .now() + .seconds(120)) == .success)
        let bytes = try #require(try received.withLock { $0 }?.get())
        #expect(bytes == first + second)
        a.close()
        b.close()
    }

    @Test func removingAndClosingInsideACallbackIsSafe() throws {
        let loop = try EpollRunLoop()
        let (a, b) = try ByteStreamPair.socketPair()
        let delegate = RecordingDelegate()
        delegate.reaction = { stream, event in
            if event == .hasBytesAvailable {
                stream.remove(from: loop)
                stream.close()
            }
        }
        b.input.delegate = delegate
        b.input.schedule(in: loop)
        try a.output.writeFully([1, 2, 3])
        loop.run(until: .now + .seconds(5))
        #expect(delegate.names == ["in:openCompleted", "in:hasBytesAvailable"])
        #expect(loop.scheduledSourceCount == 0)
        a.close()
        b.close()
    }

    @Test func theDelegateLivesWhileScheduledAndIsReleasedOnClose() throws {
        let loop = try EpollRunLoop()
        let (a, b) = try ByteStreamPair.socketPair()
        weak var weakDelegate: RecordingDelegate?
        do {
            let delegate = RecordingDelegate()
            weakDelegate = delegate
            b.input.delegate = delegate
            b.input.schedule(in: loop)
        }
        loop.run(until: .now + .milliseconds(20))
        #expect(weakDelegate != nil)
        b.input.close()
        #expect(weakDelegate == nil)
        a.close()
        b.close()
    }

    @Test func timersFireInOrderAndRepeatUntilInvalidated() throws {
        let loop = try EpollRunLoop()
        var fired: [String] = []
        loop.addTimer(after: .milliseconds(30)) { _ in fired.append("late") }
        loop.addTimer(after: .milliseconds(10)) { _ in fired.append("early") }
        var ticks = 0
        loop.addTimer(after: .milliseconds(1), repeating: .milliseconds(5)) { timer in
            ticks += 1
            if ticks == 4 { timer.invalidate() }
        }
        let cancelled = loop.addTimer(after: .milliseconds(5)) { _ in fired.append("cancelled") }
        cancelled.invalidate()
        loop.run()  // returns when no valid timer is left
        #expect(fired == ["early", "late"])
        #expect(ticks == 4)
    }

    @Test func anotherThreadCanPostWorkAndStopTheLoop() throws {
        let loop = try EpollRunLoop()
        let handle = loop.handle
        var timerFired = false
        loop.addTimer(after: .seconds(60)) { _ in timerFired = true }
        let ran = Locked(false)
        let thread = Thread {
            usleep(20_000)
            handle.post { ran.withLock { $0 = true } }
            handle.stop()
        }
        thread.start()
        loop.run()
        #expect(ran.withLock { $0 })
        #expect(!timerFired)
    }

    @Test func aThousandConnectionsOnOneLoop() throws {
        ResourceLimits.raiseOpenFileLimit()
        let loop = try EpollRunLoop()
        let listener = try ListeningSocket(host: "127.0.0.1", backlog: 1024)
        var serverSide: [EchoConnection] = []
        listener.schedule(in: loop) { pair in serverSide.append(EchoConnection(pair, loop: loop)) }
        let count = 1000
        var clients: [EchoClient] = []
        var finished = 0
        for index in 0..<count {
            let client = EchoClient(index: index, loop: loop, port: listener.address.port) {
                finished += 1
                if finished == count { loop.stop() }
            }
            clients.append(client)
        }
        loop.run(until: .now + .seconds(60))
        #expect(finished == count)
        #expect(clients.allSatisfy { $0.received == $0.message })
        #expect(serverSide.count == count)
        for client in clients { client.pair.close() }
        for server in serverSide { server.pair.close() }
        listener.close()
        #expect(loop.scheduledSourceCount == 0)
    }
}

/// Server side of the echo test: writes back what it reads.
final class EchoConnection: ByteStreamDelegate {
    let pair: ByteStreamPair

    init(_ pair: ByteStreamPair, loop: EpollRunLoop) {
        self.pair = pair
        pair.input.delegate = self
        pair.schedule(in: loop)
    }

    func stream(_ stream: ByteStream, handle event: ByteStreamEvent) {
        switch event {
        case .hasBytesAvailable:
            if let bytes = try? pair.input.read(), !bytes.isEmpty { try? pair.output.write(bytes) }
        case .endEncountered, .errorOccurred:
            pair.close()
        default:
            break
        }
    }
}

/// Client side of the echo test: connects, sends its message, reads it back, closes.
final class EchoClient: ByteStreamDelegate {
    let pair: ByteStreamPair
    let message: [UInt8]
    var received: [UInt8] = []
    let done: () -> Void

    init(index: Int, loop: EpollRunLoop, port: Int, done: @escaping () -> Void) {
        pair = ByteStreamPair.connecting(toHost: "127.0.0.1", port: port, connectTimeout: .seconds(30))
        message = Array("connection \(index) says hello".utf8)
        self.done = done
        pair.input.delegate = self
        pair.schedule(in: loop)
        try? pair.open()
        try? pair.output.write(message)
    }

    func stream(_ stream: ByteStream, handle event: ByteStreamEvent) {
        switch event {
        case .hasBytesAvailable:
            received += (try? pair.input.read()) ?? []
            if received.count >= message.count {
                pair.close()
                done()
            }
        case .errorOccurred, .endEncountered:
            pair.close()
            done()
        default:
            break
        }
    }
}
