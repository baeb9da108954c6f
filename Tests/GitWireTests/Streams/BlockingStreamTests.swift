import Foundation
import GitWireTestSupport
import Testing

@testable import GitWire
@testable import GitWirePOSIX

@Suite("Blocking streams")
struct BlockingStreamTests {
    @Test func socketPairCarriesBytesBothWays() throws {
        let (a, b) = try ByteStreamPair.socketPair()
        defer {
            a.close()
            b.close()
        }
        try a.output.writeFully(Array("hello".utf8))
        #expect(try b.input.readFully(5) == Array("hello".utf8))
        try b.output.writeFully([1, 2, 3])
        #expect(try a.input.readFully(3) == [1, 2, 3])
    }

    /// Blocking waits run on the calling thread's private loop: the two directions of one socket
    /// block on two threads at once (one writes while this one reads), and a blocking read made
    /// inside a callback of the thread's own run loop works (it does not run that loop again).
    @Test func directionsBlockOnTwoThreadsEvenInsideALoopCallback() throws {
        let (a, b) = try ByteStreamPair.socketPair()
        defer {
            a.close()
            b.close()
        }
        a.setTimeout(.seconds(60))
        b.setTimeout(.seconds(60))
        let payload = (0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 11) }
        nonisolated(unsafe) let (writer, echoInput, echoOutput) = (a.output, b.input, b.output)
        let echo = Thread {
            var echoed = 0
            while echoed < payload.count, let chunk = try? echoInput.readFully(min(65536, payload.count - echoed)) {
                echoed += chunk.count
                guard (try? echoOutput.writeFully(chunk)) != nil else { return }
            }
        }
        echo.start()
        let sender = Thread { try? writer.writeFully(payload) }
        sender.start()
        let loop = try EpollRunLoop.current()
        var received: [UInt8] = []
        loop.addTimer(after: .zero) { _ in
            while received.count < payload.count,
                let chunk = try? a.input.readFully(min(65536, payload.count - received.count))
            {
                received += chunk
            }
        }
        loop.run()
        #expect(received == payload)
    }

    @Test func tenMebibytesThroughSmallSocketBuffers() throws {
        let listener = try ListeningSocket(host: "127.0.0.1")
        let client = ByteStreamPair.connecting(toHost: "127.0.0.1", port: listener.address.port)
        try client.open()
        let server = try #require(try listener.accept(timeout: .seconds(10)))
        defer {
            client.close()
            server.close()
        }
        // A tiny send buffer forces short writes; the receive window stays at its default, since a
        // window below the loopback MSS makes TCP crawl (silly-window avoidance and delayed ACKs).
        try client.setSocketBufferSizes(send: 8192, receive: nil)
        client.setTimeout(.seconds(30))
        server.setTimeout(.seconds(30))
        let payload = (0..<(10 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
        nonisolated(unsafe) let output = client.output
        let sender = Thread { try? output.writeFully(payload) }
        sender.start()
        var received: [UInt8] = []
        var reads = 0
        while received.count < payload.count {
            let chunk = try server.input.read(maxLength: 1 << 20)
            #expect(!chunk.isEmpty)
            if chunk.isEmpty { break }
            received += chunk
            reads += 1
        }
        #expect(received == payload)
        #expect(reads > 10, "small buffers must have produced short reads")
    }

    @Test(arguments: ["127.0.0.1", "::1"])
    func connectsOverIPv4AndIPv6WithNoDelay(host: String) throws {
        guard let listener = try? ListeningSocket(host: host) else {
            try #require(host == "::1", "IPv4 loopback must be there")
            return  // no IPv6 on this machine
        }
        let client = ByteStreamPair.connecting(toHost: host, port: listener.address.port, connectTimeout: .seconds(5))
        try client.open()
        let server = try #require(try listener.accept(timeout: .seconds(10)))
        #expect(client.isNoDelay)
        try client.output.writeFully(Array("over \(host)".utf8))
        server.input.timeout = .seconds(10)
        #expect(try server.input.readFully(5 + host.utf8.count) == Array("over \(host)".utf8))
        client.close()
        server.close()
    }

    @Test func tenMebibytesThroughASmallUnixSocketBuffer() throws {
        let (a, b) = try ByteStreamPair.socketPair()
        defer {
            a.close()
            b.close()
        }
        try a.setSocketBufferSizes(send: 4096, receive: 4096)
        try b.setSocketBufferSizes(send: 4096, receive: 4096)
        a.setTimeout(.seconds(30))
        b.setTimeout(.seconds(30))
        let payload = (0..<(10 << 20)).map { UInt8(truncatingIfNeeded: $0 >> 7 ^ $0) }
        nonisolated(unsafe) let output = a.output
        let sender = Thread { try? output.writeFully(payload) }
        sender.start()
        #expect(try b.input.readFully(payload.count) == payload)
    }

    @Test func endOfStreamInsideReadFullyNamesTheCounts() throws {
        let (a, b) = try ByteStreamPair.socketPair()
        defer { b.close() }
        try a.output.writeFully([1, 2, 3])
        a.close()
        #expect(throws: StreamError.unexpectedEnd(received: 3, expected: 4)) { try b.input.readFully(4) }
        #expect(
            "\(StreamError.unexpectedEnd(received: 3, expected: 4))" == "unexpected end of stream after 3 of 4 bytes")
        #expect(try b.input.read() == [])
        #expect(b.input.status == .atEnd)
    }

    @Test func readTimesOutWhenThePeerIsSilent() throws {
        let (a, b) = try ByteStreamPair.socketPair()
        defer {
            a.close()
            b.close()
        }
        b.input.timeout = .milliseconds(50)
        let error = try #require(throws: StreamTimeoutError.self) { try b.input.readFully(1) }
        #expect(error.description == "timed out after 0.05 s reading")
    }

    @Test func connectToAClosedPortIsRefused() throws {
        // A port nothing listens on, held so that nothing can start listening on it meanwhile.
        let reserved = try ReservedPort(host: "127.0.0.1")
        let port = reserved.port
        let pair = ByteStreamPair.connecting(toHost: "127.0.0.1", port: port, connectTimeout: .seconds(5))
        let error = try #require(throws: ConnectError.self) { try withExtendedLifetime(reserved) { try pair.open() } }
        #expect(error.isRefused)
        #expect(error.description.hasPrefix("unable to connect to 127.0.0.1 port \(port): 127.0.0.1:\(port): "))
        pair.close()
    }

    @Test func connectTimesOutAgainstAFullBacklog() throws {
        let listener = try ListeningSocket(host: "127.0.0.1", backlog: 0)
        var fillers: [ByteStreamPair] = []
        defer { for filler in fillers { filler.close() } }
        // Fill the accept queue without accepting, until a connect no longer completes.
        var timedOut = false
        for _ in 0..<16 where !timedOut {
            let pair = ByteStreamPair.connecting(
                toHost: "127.0.0.1", port: listener.address.port, connectTimeout: .milliseconds(200))
            fillers.append(pair)
            do {
                try pair.open()
            } catch let error as StreamTimeoutError {
                #expect(
                    error.description == "timed out after 0.2 s connecting to 127.0.0.1 port \(listener.address.port)")
                timedOut = true
            }
        }
        #expect(timedOut)
    }

    @Test func peerResetIsAnErrorNamingTheCall() throws {
        let listener = try ListeningSocket(host: "127.0.0.1")
        let client = ByteStreamPair.connecting(toHost: "127.0.0.1", port: listener.address.port)
        try client.open()
        client.setTimeout(.seconds(10))
        let server = try #require(try listener.accept(timeout: .seconds(10)))
        try client.output.writeFully([1])
        server.abort()
        let error = try #require(throws: SystemCallError.self) { _ = try client.input.readFully(1) }
        #expect(error.errno == .connectionReset)
        #expect(error.description == "read: Connection reset by peer")
        #expect(client.input.status == .error)
        client.close()
    }

    /// Run in a process of its own, where SIGPIPE still kills (this process ignores it once any
    /// test has run a child): the write fails with `EPIPE`, the process lives, and it has not
    /// ignored the signal to get there (sockets are written with `MSG_NOSIGNAL`).
    @Test func writingAfterThePeerClosedIsAnErrorNotASignal() throws {
        let result = try ChildProcess.run([testHelperExecutable, "write-to-closed-socket"], input: [])
        #expect(result.status == 0, "ended with status \(result.status) (141: killed by SIGPIPE)")
        #expect(
            String(decoding: result.standardOutput, as: UTF8.self)
                == "SIGPIPE before: default\nwrite: EPIPE\nSIGPIPE after: default\n")
        #expect(result.standardError.isEmpty, "\(String(decoding: result.standardError, as: UTF8.self))")
    }

    @Test func pipesToAChildProcess() throws {
        let (pair, process, _) = try ByteStreamPair.spawning(["cat"])
        pair.setTimeout(.seconds(10))
        try pair.open()
        try pair.output.writeFully(Array("through cat\n".utf8))
        pair.output.close()
        #expect(try pair.input.readFully(12) == Array("through cat\n".utf8))
        #expect(try pair.input.read() == [])
        pair.input.close()
        #expect(try process.wait() == 0)
    }

    /// Run in a process of its own that starts with SIGPIPE at its default: running a child makes
    /// gitwire ignore it, so writing to the child after it exited fails with `EPIPE`.
    @Test func writingToAProcessThatExitedIsBrokenPipe() throws {
        let result = try ChildProcess.run([testHelperExecutable, "write-to-exited-child"], input: [])
        #expect(result.status == 0, "ended with status \(result.status) (141: killed by SIGPIPE)")
        #expect(
            String(decoding: result.standardOutput, as: UTF8.self)
                == "SIGPIPE before: default\nwrite: EPIPE\nSIGPIPE after: ignored\n")
        #expect(result.standardError.isEmpty, "\(String(decoding: result.standardError, as: UTF8.self))")
    }

    @Test func closingTwiceAndUsingAfterCloseAreErrorsNotCrashes() throws {
        let (a, b) = try ByteStreamPair.socketPair()
        a.close()
        a.close()
        #expect(throws: StreamError.closed) { try a.input.read() }
        #expect(throws: StreamError.closed) { try a.output.writeFully([1]) }
        #expect(throws: StreamError.closed) { try a.input.open() }
        b.close()
    }

    @Test func closingReleasesEveryDescriptor() throws {
        var inodes: Set<String> = []
        var pairs: [ByteStreamPair] = []
        let listener = try ListeningSocket(host: "127.0.0.1")
        for _ in 0..<50 {
            let (a, b) = try ByteStreamPair.socketPair()
            pairs += [a, b]
            let client = ByteStreamPair.connecting(toHost: "127.0.0.1", port: listener.address.port)
            try client.open()
            pairs.append(client)
            pairs.append(try #require(try listener.accept(timeout: .seconds(10))))
            let (child, process, _) = try ByteStreamPair.spawning(["true"])
            pairs.append(child)
            try process.wait()
        }
        for pair in pairs {
            for descriptor in [pair.input.channel.descriptor, pair.output.channel.descriptor] {
                if let descriptor, let target = descriptorTarget(descriptor.rawValue) { inodes.insert(target) }
            }
        }
        #expect(inodes.count == 50 * 4 + 50 * 2)  // four sockets and two pipe ends per round
        for pair in pairs { pair.close() }
        listener.close()
        let stillOpen = openDescriptorTargets().intersection(inodes)
        #expect(stillOpen.isEmpty, "descriptors left open: \(stillOpen.sorted())")
    }
}

/// What `/proc/self/fd/N` points at ("socket:[123]", "pipe:[456]"); unique per open file.
func descriptorTarget(_ fd: Int32) -> String? {
    try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")
}

/// The targets of every descriptor open in this process.
func openDescriptorTargets() -> Set<String> {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return Set(names.compactMap { Int32($0).flatMap(descriptorTarget) })
}
