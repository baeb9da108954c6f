import GitWireCore

/// What a finished child process printed and how it ended.
package struct ChildProcessOutput: Sendable {
    package var status: Int32
    package var standardOutput: [UInt8]
    package var standardError: [UInt8]
}

extension ChildProcess {
    /// Runs `arguments` to the end on `loop`, without blocking it: writes `input` to its standard
    /// input, collects what it prints on standard output and standard error (each up to `limit`
    /// bytes; the rest is read and dropped), and calls `completion` on the loop once both have
    /// ended and the child is reaped. For short helpers (`git credential`). The pipes are streams
    /// on the loop and the child is reaped there, as every other child is.
    package static func run(
        _ arguments: [String], input: [UInt8], environment: [String: String?] = [:], limit: Int = 1 << 20,
        in loop: EpollRunLoop, completion: @escaping (Result<ChildProcessOutput, any Error>) -> Void
    ) {
        let spawned: (pair: ByteStreamPair, process: ChildProcess, standardError: ByteInputStream?)
        do {
            spawned = try ByteStreamPair.spawning(arguments, environment: environment, captureStandardError: true)
        } catch {
            completion(.failure(error))
            return
        }
        ChildRun(
            pair: spawned.pair, process: spawned.process, standardError: spawned.standardError, limit: limit,
            completion: completion
        ).start(input: input, in: loop)
    }

    /// The blocking form of ``run(_:input:environment:limit:in:completion:)``: runs it on a loop
    /// of its own. Never on a run loop's thread.
    package static func run(
        _ arguments: [String], input: [UInt8], environment: [String: String?] = [:], limit: Int = 1 << 20
    ) throws -> ChildProcessOutput {
        let loop = try EpollRunLoop()
        var result: Result<ChildProcessOutput, any Error>?
        run(arguments, input: input, environment: environment, limit: limit, in: loop) { result = $0 }
        // Returns once both outputs have ended, the input is written and the child is reaped.
        loop.run()
        guard let result else { throw StreamError.closed }
        return try result.get()
    }
}

/// One child run by ``ChildProcess/run(_:input:environment:limit:in:completion:)``: the delegate
/// of its output streams, kept alive by them and by its reaping until it completes.
private final class ChildRun: ByteStreamDelegate {
    private let pair: ByteStreamPair
    private let process: ChildProcess
    private let standardError: ByteInputStream?
    private let limit: Int
    private var completion: ((Result<ChildProcessOutput, any Error>) -> Void)?
    private var output: [UInt8] = []
    private var errors: [UInt8] = []
    private var status: Int32?
    private var openOutputs: Int

    init(
        pair: ByteStreamPair, process: ChildProcess, standardError: ByteInputStream?, limit: Int,
        completion: @escaping (Result<ChildProcessOutput, any Error>) -> Void
    ) {
        self.pair = pair
        self.process = process
        self.standardError = standardError
        self.limit = limit
        self.completion = completion
        openOutputs = standardError == nil ? 1 : 2
    }

    func start(input: [UInt8], in loop: EpollRunLoop) {
        for stream in [pair.input, standardError].compactMap({ $0 }) {
            stream.delegate = self
            stream.schedule(in: loop)
        }
        pair.output.schedule(in: loop)
        do {
            try pair.open()
            try standardError?.open()
        } catch {
            pair.close()
            standardError?.close()
            process.reap(in: loop, grace: .seconds(1)) { [self] _ in finish(.failure(error)) }
            return
        }
        // A child that stops reading makes the write fail (EPIPE); what it printed still counts.
        if !input.isEmpty { try? pair.output.write(input) }
        pair.output.closeAfterWriting()
        process.reap(in: loop, grace: nil) { [self] code in
            status = code
            finishIfDone()
        }
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
            guard stream.status != .closed else { return }
            stream.close()
            openOutputs -= 1
            finishIfDone()
        case .openCompleted, .hasSpaceAvailable:
            break
        }
    }

    private func finishIfDone() {
        guard openOutputs == 0, let status else { return }
        finish(.success(ChildProcessOutput(status: status, standardOutput: output, standardError: errors)))
    }

    private func finish(_ result: Result<ChildProcessOutput, any Error>) {
        pair.close()
        standardError?.close()
        let completion = self.completion
        self.completion = nil
        completion?(result)
    }
}
