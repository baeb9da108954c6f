import Foundation
import GitWire

/// What a finished process printed and how it ended.
public struct ProcessOutput: Sendable {
    /// Exit status (128 + the signal, if a signal ended it).
    public var status: Int32
    /// Everything written to standard output.
    public var standardOutput: [UInt8]
    /// Everything written to standard error.
    public var standardError: [UInt8]

    /// Makes an output from its parts.
    public init(status: Int32, standardOutput: [UInt8], standardError: [UInt8]) {
        self.status = status
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

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

/// Runs a program found on `PATH` to completion, feeding it `input` (a program may exit without
/// reading all of it, on an error say: that is no failure), in `directory` if one is given, with
/// the test process's environment changed by `environment`.
///
/// The program is started with gitwire's own `posix_spawn` (`ChildProcess`), not Foundation's
/// `Process`: in Swift 6.3.1 `Process.run` reads past the end of a heap buffer while it lists
/// `/proc/self/fd` (AddressSanitizer stops the test process there; without it the read can crash
/// now and then; fixed upstream in swift-corelibs-foundation #5472).
@discardableResult
public func run(
    _ arguments: [String], in directory: String? = nil, environment: [String: String] = [:],
    input: [UInt8] = [], check: Bool = true
) throws -> ProcessOutput {
    // `env -C` changes the directory: posix_spawn has no portable way to.
    let command = ["env"] + (directory.map { ["-C", $0] } ?? []) + ["--"] + arguments
    let result = try ChildProcess.run(
        command, input: input, environment: environment.mapValues { $0 }, limit: .max)
    let output = ProcessOutput(
        status: result.status, standardOutput: result.standardOutput, standardError: result.standardError)
    if check && output.status != 0 { throw CommandFailed(command: arguments, output: output) }
    return output
}
