import GitWireCore
import Glibc

/// The process's standard output and standard error, for command-line tools.
package enum Console {
    /// Writes `text` to standard output.
    package static func writeOutput(_ text: String) throws { try write(Array(text.utf8), to: .standardOutput) }

    /// Writes `bytes` to standard output, exactly as given.
    package static func writeOutput(_ bytes: [UInt8]) throws { try write(bytes, to: .standardOutput) }

    /// Writes `text` to standard error, ignoring failures (there is nowhere left to report them).
    package static func writeError(_ text: String) { try? write(Array(text.utf8), to: .standardError) }

    /// Writes `bytes` to standard error, exactly as given, ignoring failures.
    package static func writeError(_ bytes: [UInt8]) { try? write(bytes, to: .standardError) }

    /// Ends the process with `status`, as `exit(3)` does (buffers flushed, handlers run).
    package static func exit(_ status: Int32) -> Never {
        Glibc.exit(status)
    }

    /// Whether standard error is a terminal.
    package static var errorIsTerminal: Bool { FileDescriptor.standardError.isTerminal }

    private static func write(_ bytes: [UInt8], to descriptor: FileDescriptor) throws {
        ignoreBrokenPipeSignal()
        var rest = bytes[...]
        while !rest.isEmpty {
            switch try descriptor.write(rest, isSocket: false) {
            case .done(let count): rest = rest.dropFirst(count)
            case .wouldBlock: _ = try Poll.wait(descriptor, forWriting: true, timeout: nil)
            }
        }
    }
}
