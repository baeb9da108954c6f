import GitWireCore

/// What a finished child process printed and how it ended.
package struct ChildProcessOutput: Sendable {
    package var status: Int32
    package var standardOutput: [UInt8]
    package var standardError: [UInt8]
}

extension ChildProcess {
    /// Runs `arguments` to the end, blocking: writes `input` to its standard input, collects what
    /// it prints on standard output and standard error (each up to `limit` bytes; the rest is
    /// read and dropped), and waits for it. For short helpers (`git credential`), never on a run
    /// loop's thread. The pipes are streams and the child is reaped on a private run loop, as
    /// every other child's.
    package static func run(
        _ arguments: [String], input: [UInt8], environment: [String: String?] = [:], limit: Int = 1 << 20
    ) throws -> ChildProcessOutput {
        let (pair, process, standardError) = try ByteStreamPair.spawning(
            arguments, environment: environment, captureStandardError: true)
        let collector = ChildOutputCollector(limit: limit, standardError: standardError)
        var status: Int32?
        do {
            let loop = try EpollRunLoop()
            for stream in [pair.input, standardError].compactMap({ $0 }) {
                stream.delegate = collector
                stream.schedule(in: loop)
            }
            pair.output.schedule(in: loop)
            try pair.open()
            try standardError?.open()
            if !input.isEmpty { try? pair.output.write(input) }
            pair.output.closeAfterWriting()
            process.reap(in: loop, grace: nil) { status = $0 }
            // Returns once both outputs have ended, the input is written and the child is reaped.
            loop.run()
        } catch {
            pair.close()
            standardError?.close()
            process.reap()
            throw error
        }
        pair.close()
        standardError?.close()
        return ChildProcessOutput(
            status: status ?? process.reap(), standardOutput: collector.output, standardError: collector.errors)
    }
}

/// Keeps what a child prints on its scheduled output streams, up to a limit each.
private final class ChildOutputCollector: ByteStreamDelegate {
    let limit: Int
    let standardError: ByteInputStream?
    var output: [UInt8] = []
    var errors: [UInt8] = []

    init(limit: Int, standardError: ByteInputStream?) {
        self.limit = limit
        self.standardError = standardError
    }

    func stream(_ stream: ByteStream, handle event: ByteStreamEvent) {
        switch event {
        case .hasBytesAvailable:
            guard let input = stream as? ByteInputStream, let bytes = try? input.read(), !bytes.isEmpty else { return }
            if input === standardError {
                errors += bytes.prefix(max(0, limit - errors.count))
            } else {
                output += bytes.prefix(max(0, limit - output.count))
            }
        case .endEncountered, .errorOccurred:
            stream.close()
        case .openCompleted, .hasSpaceAvailable:
            break
        }
    }
}
