/// A credential as git's credential helpers exchange it (`man git-credential`): what it is for,
/// and the username and password once known.
struct GitCredential: Sendable {
    var protocolName: String
    var host: String
    var path: String?
    var username: String?
    var password: Secret?

    /// The `key=value` lines git credential reads, ending with a blank line. Values with a
    /// newline or NUL cannot be sent (git refuses them too), so they are left out.
    var text: String {
        var lines = ["protocol=\(protocolName)", "host=\(host)"]
        if let path { lines.append("path=\(path)") }
        if let username { lines.append("username=\(username)") }
        if let password { lines.append("password=\(password.revealed)") }
        return lines.filter { !$0.contains("\n") && !$0.contains("\0") }.map { $0 + "\n" }.joined() + "\n"
    }

    /// Takes `username` and `password` from what `git credential fill` printed.
    mutating func update(from output: [UInt8]) {
        for line in String(decoding: output, as: UTF8.self).split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            let value = String(line[line.index(after: equals)...])
            switch line[..<equals] {
            case "username": username = value
            case "password": password = Secret(value)
            default: break
            }
        }
    }
}

/// Runs `git credential fill|approve|reject`, so the user's credential helpers (and git's own
/// prompt, unless `GIT_TERMINAL_PROMPT=0`) supply and remember HTTP credentials. Blocking: call it
/// off the run loop. One call at a time in the whole process: many sessions (`ls-remote --batch`)
/// meeting 401s at once prompt on the terminal one after the other, and a helper that stores
/// credentials in a file never runs twice at once.
enum GitCredentialHelper {
    /// Held while `git credential` runs.
    private static let oneAtATime = Locked(())

    /// Asks git for the username and password of `credential`. Throws with git's own message
    /// (`could not read Username for '…': terminal prompts disabled`) when it has none.
    static func fill(_ credential: GitCredential, environment: [String: String?] = [:]) throws -> GitCredential {
        let result: ChildProcessOutput
        do {
            result = try oneAtATime.withLock { _ in
                try ChildProcess.run(
                    ["git", "credential", "fill"], input: Array(credential.text.utf8), environment: environment)
            }
        } catch {
            throw HTTPError(
                .credentialsUnavailable(
                    "cannot ask for credentials for '\(credential.protocolName)://\(credential.host)': \(error)"),
                url: "\(credential.protocolName)://\(credential.host)")
        }
        guard result.status == 0 else {
            var message = String(decoding: result.standardError, as: UTF8.self)
            while message.last == "\n" { message.removeLast() }
            if let lastLine = message.split(separator: "\n").last { message = String(lastLine) }
            if message.hasPrefix("fatal: ") { message.removeFirst("fatal: ".count) }
            throw HTTPError(
                .credentialsUnavailable(message.isEmpty ? "git credential fill failed" : message),
                url: "\(credential.protocolName)://\(credential.host)")
        }
        var filled = credential
        filled.update(from: result.standardOutput)
        return filled
    }

    /// Tells the helpers `credential` worked (`approve`) or did not (`reject`). Failures are
    /// ignored, as git ignores them.
    static func report(_ credential: GitCredential, approved: Bool, environment: [String: String?] = [:]) {
        oneAtATime.withLock { _ in
            _ = try? ChildProcess.run(
                ["git", "credential", approved ? "approve" : "reject"], input: Array(credential.text.utf8),
                environment: environment)
        }
    }
}
