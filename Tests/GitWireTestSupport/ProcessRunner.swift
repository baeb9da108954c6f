import Foundation

/// What a finished process printed and how it ended.
public struct ProcessOutput: Sendable {
    /// Exit status (or the terminating signal).
    public var status: Int32
    /// Everything written to standard output.
    public var standardOutput: [UInt8]
    /// Everything written to standard error.
    public var standardError: [UInt8]

    /// Standard output as text.
    public var text: String { String(decoding: standardOutput, as: UTF8.self) }
    /// Standard error as text.
    public var errorText: String { String(decoding: standardError, as: UTF8.self) }
}

/// A command failed in a test helper.
public struct CommandFailed: Error, CustomStringConvertible {
    /// The command line.
    public var command: [String]
    /// What it printed and its status.
    public var output: ProcessOutput

    /// The text shown in test failures.
    public var description: String {
        "\(command.joined(separator: " ")) exited \(output.status): \(output.errorText)"
    }
}

/// Runs a program found on `PATH` to completion, feeding it `input`.
@discardableResult
public func run(
    _ arguments: [String], in directory: String? = nil, environment: [String: String] = [:],
    input: [UInt8] = [], check: Bool = true
) throws -> ProcessOutput {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let stdout = Pipe()
    let stderr = Pipe()
    let stdin = Pipe()
    process.standardOutput = stdout
    process.standardError = stderr
    process.standardInput = stdin
    ignoreBrokenPipes
    try process.run()
    let writer = Thread {
        // A program may exit without reading all its input (on an error, say): that is no failure.
        try? stdin.fileHandleForWriting.write(contentsOf: Data(input))
        try? stdin.fileHandleForWriting.close()
    }
    writer.start()
    let errorData = ErrorCollector(stderr.fileHandleForReading)
    let outData = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let output = ProcessOutput(
        status: process.terminationStatus, standardOutput: Array(outData), standardError: Array(errorData.wait()))
    if check && output.status != 0 { throw CommandFailed(command: arguments, output: output) }
    return output
}

/// Writing to a program that has exited fails with `EPIPE` instead of killing the test process.
private let ignoreBrokenPipes: Void = { signal(SIGPIPE, SIG_IGN) }()

/// Reads a pipe to its end on a thread of its own, so two pipes never deadlock each other.
private final class ErrorCollector: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread {
            self.data = handle.readDataToEndOfFile()
            self.done.signal()
        }.start()
    }

    func wait() -> Data {
        done.wait()
        return data
    }
}
