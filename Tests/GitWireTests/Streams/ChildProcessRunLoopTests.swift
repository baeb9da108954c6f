import Foundation
import GitWireTestSupport
import Testing

@testable import GitWire
@testable import GitWirePOSIX

/// A child's pipes driven by a run loop, as the local transport uses them.
@Suite("Child process pipes in a run loop")
struct ChildProcessRunLoopTests {
    /// Pipes are open from the start: scheduling first and opening next (the order the local
    /// transport uses) must still have the loop watch the child's output.
    @Test(arguments: [true, false])
    func catEchoesThroughScheduledPipes(openBeforeScheduling: Bool) throws {
        let loop = try EpollRunLoop()
        let (pair, process, _) = try ByteStreamPair.spawning(["cat"])
        let delegate = RecordingDelegate()
        var received: [UInt8] = []
        delegate.reaction = { stream, event in
            if event == .hasBytesAvailable, let input = stream as? ByteInputStream {
                received += (try? input.read()) ?? []
            }
            if event == .endEncountered { loop.stop() }
        }
        pair.input.delegate = delegate
        pair.output.delegate = delegate
        if openBeforeScheduling { try pair.open() }
        pair.schedule(in: loop)
        if !openBeforeScheduling { try pair.open() }
        let message = Array("through cat and back\n".utf8)
        try pair.output.write(message)
        pair.output.close()
        loop.run(until: .now + .seconds(10))
        #expect(received == message)
        #expect(delegate.names.contains("in:endEncountered"))
        pair.close()
        #expect(process.reap() == 0)
    }

    /// `ChildProcess.run` (what `git credential` runs through) drives the child's three pipes on a
    /// run loop: more than a pipe buffer in and out at once, standard error apart, output beyond
    /// the limit read and dropped, and the exit code from the one reaping path.
    @Test func runFeedsAndDrainsAChildOnALoop() throws {
        let input = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 >> 3) }
        let result = try ChildProcess.run(
            ["sh", "-c", "cat; echo done >&2; exit 3"], input: input, limit: 4 << 20)
        #expect(result.status == 3)
        #expect(result.standardOutput == input)
        #expect(result.standardError == Array("done\n".utf8))
        let limited = try ChildProcess.run(["cat"], input: input, limit: 1000)
        #expect(limited.status == 0)
        #expect(limited.standardOutput == Array(input.prefix(1000)))
    }

    /// A descriptor opened without close-on-exec by another part of the process (Foundation's
    /// pipes do this) does not leak into children: they start with standard input, output and
    /// error only.
    @Test func childrenInheritNoOtherDescriptors() throws {
        var pair: [Int32] = [0, 0]
        #expect(pipe(&pair) == 0)
        // Moved above the descriptors ls opens for itself (3 when the pipe took it, the test
        // could not tell them apart), still without close-on-exec.
        let leaky = pair.map { fcntl($0, F_DUPFD, 100) }
        close(pair[0])
        close(pair[1])
        #expect(leaky.allSatisfy { $0 >= 100 })
        defer {
            close(leaky[0])
            close(leaky[1])
        }
        let result = try ChildProcess.run(["sh", "-c", "exec ls /proc/self/fd"], input: [])
        let descriptors = String(decoding: result.standardOutput, as: UTF8.self).split(separator: "\n").compactMap {
            Int32($0)
        }
        #expect(descriptors.contains(2))
        // ls itself opens one descriptor to list the folder; the pipe's two are not there.
        #expect(!descriptors.contains(leaky[0]) && !descriptors.contains(leaky[1]), "\(descriptors) \(leaky)")
        #expect(descriptors.count <= 4)
    }

    /// A helper that closes its standard input before reading it (the request goes nowhere:
    /// more than a pipe holds, so the write fails) still ends the run with its output and code.
    @Test func childClosingItsInputEarlyStillEnds() throws {
        let input = [UInt8](repeating: 0x61, count: 4 << 20)
        let result = try ChildProcess.run(
            ["sh", "-c", "exec 0<&-; echo early; echo why >&2; exit 4"], input: input)
        #expect(result.status == 4)
        #expect(result.standardOutput == Array("early\n".utf8))
        #expect(result.standardError == Array("why\n".utf8))
    }

    /// A helper that writes far more than the limit on both outputs ends the run with the limit
    /// kept of each: the rest is read and dropped, not held.
    @Test func floodingChildIsReadToItsEndWithinTheLimit() throws {
        let result = try ChildProcess.run(
            ["sh", "-c", "head -c 67108864 /dev/zero >&2 & head -c 67108864 /dev/zero; wait; exit 2"], input: [],
            limit: 1000)
        #expect(result.status == 2)
        #expect(result.standardOutput == [UInt8](repeating: 0, count: 1000))
        #expect(result.standardError == [UInt8](repeating: 0, count: 1000))
    }

    /// A helper that leaves a process behind holding its standard error (a daemon it starts) ends
    /// the run as soon as it has exited and its output has ended, with what it wrote itself: what
    /// the process left behind writes later is not waited for (the old run waited for it, as long
    /// as it lived; git does not capture that output at all).
    @Test func aProcessLeftBehindHoldingStandardErrorIsNotWaitedFor() throws {
        let later = scaledForSlowRuns(seconds: 30)
        let result = try ChildProcess.run(
            ["sh", "-c", "echo out; echo err >&2; (sleep \(later); echo late >&2) >/dev/null & exit 3"], input: [])
        #expect(result.status == 3)
        #expect(result.standardOutput == Array("out\n".utf8))
        #expect(result.standardError == Array("err\n".utf8))
    }
}
