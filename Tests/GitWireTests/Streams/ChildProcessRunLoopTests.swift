import Foundation
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
}
