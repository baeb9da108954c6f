import ArgumentParser
import GitWire

/// A subcommand that reports failures as git does: `fatal: <message>` on standard error and exit
/// status 128. Its ``execute()`` returns the exit status for everything else.
protocol GitStyleCommand: ParsableCommand {
    /// Does the work; returns the exit status.
    func execute() throws -> Int32
}

extension GitStyleCommand {
    func run() throws {
        let status: Int32
        do {
            status = try execute()
        } catch let error as ExitCode {
            throw error
        } catch {
            if let error = error as? HTTPError, let message = error.serverMessage {
                // git shows a server's plain-text error page line by line before its own message.
                for line in message.split(separator: "\n", omittingEmptySubsequences: false) {
                    Console.writeError("remote: \(line)\n")
                }
            }
            if let error = error as? ProtocolVersionError {
                // git's advice comes before its error.
                Console.writeError("hint: \(error.hint)\n")
            }
            Console.writeError("fatal: \(error)\n")
            throw ExitCode(128)
        }
        if status != 0 { throw ExitCode(status) }
    }
}

/// Parses `--timeout` values: seconds, fractions allowed.
func parseTimeout(_ text: String?) throws -> Duration? {
    guard let text else { return nil }
    guard let seconds = Double(text), seconds > 0, seconds.isFinite else {
        throw ValidationError("--timeout takes a positive number of seconds, not '\(text)'")
    }
    return .milliseconds(Int64((seconds * 1000).rounded(.up)))
}

extension Remote {
    /// Routes what the transport would tell the user (an HTTP redirect) to standard error as
    /// git's `warning: …` lines.
    mutating func showWarningsOnStandardError() {
        if var http = transport as? HTTPTransport {
            http.options.warning = { Console.writeError("warning: \($0)\n") }
            transport = http
        }
    }
}
