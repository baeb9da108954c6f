import GitWire

/// A usage mistake found once the command runs, reported as `fatal: <message>` with exit status
/// 128, as git reports the values it cannot use.
typealias ValidationError = UsageError

extension Subcommand {
    /// Runs the command, reporting failures as git does: `fatal: <message>` on standard error and
    /// exit status 128. Returns the exit status.
    func runReportingErrors() -> Int32 {
        do {
            return try execute()
        } catch {
            if let error = error as? HTTPError, let message = error.serverMessage {
                // git shows a server's plain-text error page line by line before its own message.
                for line in message.split(separator: "\n", omittingEmptySubsequences: false) {
                    Console.writeError("remote: \(maskedForTerminal(String(line)))\n")
                }
            }
            if let failure = error as? ReportedFailure {
                Console.writeError(failure.text)
                return 128
            }
            // git's send-pack, whose side-band demultiplexer died of band 3, finds the remote gone.
            let failure =
                self is PushCommand
                ? RemoteError.inside(error)?.reported(fatalLines: "fatal: the remote end hung up unexpectedly\n")
                : RemoteError.inside(error)?.reported(PackReading())
            if let failure {
                Console.writeError(failure.text)
                return 128
            }
            if let error = error as? ConfigError, let reason = error.reason {
                // git's `error:` line comes before its fatal message.
                Console.writeError("error: \(maskedForTerminal(reason))\n")
            }
            if let error = error as? CredentialURLNewlineError {
                // git's warning comes before its fatal message.
                Console.writeError("warning: \(maskedForTerminal(error.warning))\n")
            }
            if let error = error as? ProtocolVersionError {
                // git's advice comes before its error.
                Console.writeError("hint: \(error.hint)\n")
            }
            // What ssh or git-upload-pack said is on the terminal already, as git's children
            // write it there: only what gitwire saw follows.
            let shown = (error as? RemoteProgramError).map { "\($0.underlying)" } ?? "\(error)"
            // Errors carry server text (ERR lines, band 3, names): masked as git's die() masks it.
            Console.writeError("fatal: \(maskedForTerminal(shown))\n")
            return 128
        }
    }
}

/// A failure already in git's words: written as it is, exit status 128.
struct ReportedFailure: Error {
    let text: [UInt8]
}

extension RemoteError {
    /// The remote's error in `error`, itself or explained by its program's standard error.
    static func inside(_ error: any Error) -> RemoteError? {
        error as? RemoteError ?? (error as? RemoteProgramError)?.underlying.base as? RemoteError
    }

    /// Side-band 3 as git shows it: the server's own line after `remote: ` (a NUL as it came,
    /// other control characters masked), a newline, then where git's pack reader stopped. Nil
    /// for an `ERR` packet.
    func reported(_ reading: PackReading) -> ReportedFailure? {
        guard case .sideBand(let header) = origin else { return nil }
        return reported(fatalLines: reading.fatalLines(header: header))
    }

    /// Side-band 3 as git shows it, followed by `fatalLines` (where the command stopped). Nil for
    /// an `ERR` packet.
    func reported(fatalLines: String) -> ReportedFailure? {
        guard case .sideBand = origin else { return nil }
        var shown: [UInt8] = Array("remote: ".utf8)
        for (index, part) in rawMessage.split(separator: 0, omittingEmptySubsequences: false).enumerated() {
            if index > 0 { shown.append(0) }
            shown += maskedForTerminal(Array(part))
        }
        return ReportedFailure(text: shown + [0x0a] + Array(fatalLines.utf8))
    }
}

/// The longest wait an option takes, in seconds (about 31 years): anything longer is a mistake,
/// and this keeps every deadline computed from it far from overflowing.
let maximumSeconds = 1e9

/// Parses `--timeout` values: seconds, fractions allowed.
func parseTimeout(_ text: String?) throws -> Duration? {
    guard let text else { return nil }
    return try parseSeconds(text, option: "--timeout")
}

/// Parses a number of seconds given to `option`: positive, finite, at most ``maximumSeconds``;
/// rounded up to whole milliseconds.
func parseSeconds(_ text: String, option: String) throws -> Duration {
    guard let seconds = Double(text), seconds > 0, seconds <= maximumSeconds else {
        throw ValidationError(
            "\(option) takes a positive number of seconds up to \(Int(maximumSeconds)), not '\(text)'")
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
