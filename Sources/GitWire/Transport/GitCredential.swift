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

    /// Takes `username` and `password` from what `git credential fill` printed. Returns false,
    /// and takes nothing, when the answer is for another origin: a helper that says `url=` (or
    /// `protocol=`/`host=`) for another scheme, host or port makes git print that origin, and
    /// the credential belongs to it, not to the one asked about (git 2.39 sends it to the one
    /// asked about all the same). Host names compare without case, and a default port written
    /// or not is the same port.
    mutating func update(from output: [UInt8]) -> Bool {
        var answered = (protocolName: protocolName, host: host)
        var found: (username: String?, password: Secret?) = (nil, nil)
        for line in String(decoding: output, as: UTF8.self).split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            let value = String(line[line.index(after: equals)...])
            switch line[..<equals] {
            case "protocol": answered.protocolName = value
            case "host": answered.host = value
            case "username": found.username = value
            case "password": found.password = Secret(value)
            default: break
            }
        }
        guard Self.origin(answered.protocolName, answered.host) == Self.origin(protocolName, host) else { return false }
        if let username = found.username { self.username = username }
        if let password = found.password { self.password = password }
        return true
    }

    /// `protocol` and `host` as one origin: the host in lower case, without the protocol's
    /// default port.
    private static func origin(_ protocolName: String, _ host: String) -> String {
        var host = host.lowercased()
        let defaultPort = protocolName == "https" ? ":443" : protocolName == "http" ? ":80" : nil
        if let defaultPort, host.hasSuffix(defaultPort) { host.removeLast(defaultPort.count) }
        return protocolName.lowercased() + "://" + host
    }
}

/// Runs `git credential fill|approve|reject`, so the user's credential helpers (and git's own
/// prompt, unless `GIT_TERMINAL_PROMPT=0`) supply and remember HTTP credentials. On the caller's
/// run loop, without blocking it: the child is a channel on that loop and it is reaped
/// there. One call at a time in the whole process: many sessions (`ls-remote --batch`) meeting
/// 401s at once prompt on the terminal one after the other, and a helper that stores credentials
/// in a file never runs twice at once; a call waits for its turn without blocking its loop.
enum GitCredentialHelper {
    /// Whether a call runs now, and the calls waiting for their turn (each starts on its loop).
    private static let turns = Locked(Turns())

    private struct Turns {
        var busy = false
        var waiting: [@Sendable () -> Void] = []
    }

    /// Asks git for the username and password of `credential`; fails with git's own message
    /// (`could not read Username for '…': terminal prompts disabled`) when it has none.
    /// The returned call is ended with ``GitCredentialCall/cancel()`` when the answer is no
    /// longer wanted (the connection that asked has closed).
    @discardableResult
    static func fill(
        _ credential: GitCredential, environment: [String: String?] = [:], in loop: EpollRunLoop,
        completion: @escaping (Result<GitCredential, any Error>) -> Void
    ) -> GitCredentialCall {
        let url = "\(credential.protocolName)://\(credential.host)"
        return call("fill", credential, environment: environment, in: loop) { outcome in
            let result: ChildProcessOutput
            switch outcome {
            case .success(let output): result = output
            case .failure(let error):
                let message = "cannot ask for credentials for '\(url)': \(error)"
                return completion(.failure(HTTPError(.credentialsUnavailable(message), url: url)))
            }
            guard result.status == 0 else {
                var message = String(decoding: result.standardError, as: UTF8.self)
                while message.last == "\n" { message.removeLast() }
                if let lastLine = message.split(separator: "\n").last { message = String(lastLine) }
                if message.hasPrefix("fatal: ") { message.removeFirst("fatal: ".count) }
                let reason = message.isEmpty ? "git credential fill failed" : message
                return completion(.failure(HTTPError(.credentialsUnavailable(reason), url: url)))
            }
            var filled = credential
            guard filled.update(from: result.standardOutput) else {
                let reason = "credential helper answered for another origin than '\(url)'; its credential is not sent"
                return completion(.failure(HTTPError(.credentialsUnavailable(reason), url: url)))
            }
            completion(.success(filled))
        }
    }

    /// Tells the helpers `credential` worked (`approve`) or did not (`reject`). Failures are
    /// ignored, as git ignores them.
    static func report(
        _ credential: GitCredential, approved: Bool, environment: [String: String?] = [:], in loop: EpollRunLoop
    ) {
        call(approved ? "approve" : "reject", credential, environment: environment, in: loop) { _ in }
    }

    /// Runs `git credential <action>` on `loop` once no other call runs in the process.
    @discardableResult
    private static func call(
        _ action: String, _ credential: GitCredential, environment: [String: String?], in loop: EpollRunLoop,
        completion: @escaping (Result<ChildProcessOutput, any Error>) -> Void
    ) -> GitCredentialCall {
        let handle = loop.handle
        // The loop must not run out of work while the call waits for its turn.
        let call = GitCredentialCall(hold: RunLoopHold(loop))
        let start = Transferred({
            call.hold.release()
            // Cancelled while it waited: never started, and the turn goes on.
            guard !call.isCancelled else { return releaseTurn() }
            call.run = ChildProcess.run(
                ["git", "credential", action], input: Array(credential.text.utf8), environment: environment, in: loop
            ) { result in
                call.run = nil
                releaseTurn()
                completion(result)
            }
        })
        let begin: @Sendable () -> Void = {
            // A loop that is gone meanwhile gives its turn on.
            if !handle.post({ start.value() }) { releaseTurn() }
        }
        let startsNow = turns.withLock { turns in
            if turns.busy {
                turns.waiting.append(begin)
                return false
            }
            turns.busy = true
            return true
        }
        if startsNow { start.value() }
        return call
    }

    private static func releaseTurn() {
        let next = turns.withLock { turns -> (@Sendable () -> Void)? in
            if turns.waiting.isEmpty {
                turns.busy = false
                return nil
            }
            return turns.waiting.removeFirst()
        }
        next?()
    }
}

/// One `git credential` call, which its caller may give up on: one still waiting for its turn
/// never starts (and no longer holds its loop), a running one is ended (`SIGTERM`, then
/// `SIGKILL` a second later) and reaped, and the next call in the process takes its turn once
/// it has ended. A running call still completes (with the exit status it ended with); one that
/// never started never completes. Used on the loop it was started on only.
final class GitCredentialCall: @unchecked Sendable {
    // @unchecked: created, started, cancelled and completed on one run loop's thread (the turn
    // that starts it is posted to that loop); other threads only carry it along.
    fileprivate let hold: RunLoopHold
    fileprivate var run: ChildRun?
    fileprivate private(set) var isCancelled = false

    fileprivate init(hold: RunLoopHold) { self.hold = hold }

    /// Ends the call: see the type. Nothing once it has completed.
    func cancel() {
        guard !isCancelled else { return }
        isCancelled = true
        hold.release()
        run?.terminate()
    }
}
