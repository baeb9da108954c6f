/// The process's standard output and standard error, for command-line tools.
public enum Console {
    /// Writes `text` to standard output.
    public static func writeOutput(_ text: String) throws { try write(text, to: .standardOutput) }

    /// Writes `text` to standard error, ignoring failures (there is nowhere left to report them).
    public static func writeError(_ text: String) { try? write(text, to: .standardError) }

    /// Whether standard error is a terminal.
    public static var errorIsTerminal: Bool { FileDescriptor.standardError.isTerminal }

    private static func write(_ text: String, to descriptor: FileDescriptor) throws {
        var rest = Array(text.utf8)[...]
        while !rest.isEmpty {
            switch try descriptor.write(rest, isSocket: false) {
            case .done(let count): rest = rest.dropFirst(count)
            case .wouldBlock: _ = try Poll.wait(descriptor, forWriting: true, timeout: nil)
            }
        }
    }
}
