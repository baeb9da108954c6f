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
    /// bytes; the rest is read and dropped), and calls `completion` on the loop once its output
    /// has ended (and its standard error, or a short grace after) and the child is reaped. For
    /// short helpers (`git credential`). The child is a ``StreamChannel`` on the loop, the
    /// connection every other child is, reaped there the moment it ends. The returned run ends
    /// the child early if its caller no longer waits for it (``ChildRun/terminate()``); nil
    /// when the child could not be started (`completion` has failed already).
    @discardableResult
    package static func run(
        _ arguments: [String], input: [UInt8], environment: [String: String?] = [:], limit: Int = 1 << 20,
        in loop: EpollRunLoop, completion: @escaping (Result<ChildProcessOutput, any Error>) -> Void
    ) -> ChildRun? {
        let channel: StreamChannel
        do {
            channel = try StreamChannel.connection(
                spawning: arguments, environment: environment, errorOutput: .kept, loop: loop)
        } catch {
            completion(.failure(error))
            return nil
        }
        let run = ChildRun(channel: channel, limit: limit, completion: completion)
        run.start(input: input)
        return run
    }

    /// The blocking form of ``run(_:input:environment:limit:in:completion:)``: runs it on a loop
    /// of its own. Never on a run loop's thread.
    package static func run(
        _ arguments: [String], input: [UInt8], environment: [String: String?] = [:], limit: Int = 1 << 20
    ) throws -> ChildProcessOutput {
        let loop = try EpollRunLoop()
        var result: Result<ChildProcessOutput, any Error>?
        run(arguments, input: input, environment: environment, limit: limit, in: loop) { result = $0 }
        // Returns once the output has ended, the input is written and the child is reaped.
        loop.run()
        guard let result else { throw StreamError.closed }
        return try result.get()
    }
}

/// One child run by ``ChildProcess/run(_:input:environment:limit:in:completion:)``: the handler
/// of its channel, kept alive by it (and by its exit callback) until it completes. Used on its
/// loop only.
package final class ChildRun: ConnectionHandler {
    private let channel: StreamChannel
    private let limit: Int
    private var completion: ((Result<ChildProcessOutput, any Error>) -> Void)?
    private var output: [UInt8] = []
    private var errors: [UInt8] = []
    private var status: Int32?
    private var outputEnded = false

    init(channel: StreamChannel, limit: Int, completion: @escaping (Result<ChildProcessOutput, any Error>) -> Void) {
        self.channel = channel
        self.limit = limit
        self.completion = completion
    }

    func start(input: [UInt8]) {
        channel.onStandardError = { [self] bytes in errors += bytes.prefix(max(0, limit - errors.count)) }
        channel.onExit = { [self] code in
            status = code
            finishIfDone()
        }
        channel.start(handler: self)
        channel.send(input)
        channel.finishSending()
    }

    /// Ends the child now, for a caller that no longer waits for it: `SIGTERM`, and `SIGKILL` a
    /// second later if it still runs. It is reaped on the loop and the run completes as ever
    /// (with the child's exit status), so nothing is left behind. Nothing once it has completed.
    package func terminate() {
        guard completion != nil else { return }
        channel.terminateChild()
    }

    package func connectionDidOpen(_ connection: any Connection) {}

    package func connection(_ connection: any Connection, didReceive bytes: [UInt8]) {
        output += bytes.prefix(max(0, limit - output.count))
    }

    package func connectionDidEnd(_ connection: any Connection) {
        outputEnded = true
        finishIfDone()
    }

    package func connection(_ connection: any Connection, didFail error: any Error) {
        // A child that stops reading makes the write fail (EPIPE); what it prints still counts,
        // and its output is read on to its end. A failed read ends the output.
        guard !channel.isReading else { return }
        outputEnded = true
        finishIfDone()
    }

    private func finishIfDone() {
        guard outputEnded, let status, let completion else { return }
        self.completion = nil
        channel.onStandardError = nil
        channel.onExit = nil
        channel.close()
        completion(.success(ChildProcessOutput(status: status, standardOutput: output, standardError: errors)))
    }
}
