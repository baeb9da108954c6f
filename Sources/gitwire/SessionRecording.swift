import GitWire
import GitWireReplay

/// `--record=<file>`: routes a remote's transport through a recorder and saves the session.
/// `--replay=<file>` (for tests): plays a recorded session back instead, and checks at the end
/// that the client sent exactly the recorded bytes.
struct SessionRecording {
    let path: String
    let recorder = SessionRecorder()
    /// The replaying transport, when playing back.
    private(set) var replay: ReplayTransport?

    /// Starts recording everything `remote` sends and receives.
    init(path: String, remote: inout Remote) {
        self.path = path
        // Credentials in a URL (`https://user:password@host/…`) never reach the fixture, nor the
        // values of `-c`/`--config` settings (an `http.extraHeader` is often one).
        let arguments = Self.withoutConfigValues(CommandLine.arguments.dropFirst().filter { !$0.hasPrefix("--record") })
            .map(RemoteURL.withoutCredentials)
        let command = (["gitwire"] + arguments).joined(separator: " ")
        remote.transport = RecordingTransport(wrapping: remote.transport, recorder: recorder, command: command)
    }

    /// `arguments` with the value of each `-c`/`--config` setting (git's and clone's) replaced
    /// by `…`: `-c http.extraHeader=…`.
    static func withoutConfigValues(_ arguments: [String]) -> [String] {
        var result: [String] = []
        var settingNext = false
        for argument in arguments {
            let isSetting =
                settingNext || argument.hasPrefix("--config=") || (argument.hasPrefix("-c") && argument.count > 2)
            settingNext = argument == "-c" || argument == "--config"
            if isSetting, let equals = argument.dropFirst(argument.hasPrefix("--config=") ? 9 : 0).firstIndex(of: "=") {
                result.append(argument[...equals] + "…")
            } else {
                result.append(argument)
            }
        }
        return result
    }

    /// Plays the session in the fixture at `path` back to `remote`'s client: no connection is made.
    init(replaying path: String, remote: inout Remote) throws {
        self.path = path
        var transport = try ReplayTransport(fixture: path)
        // A push's large body goes as over the live connection: after git's probe request.
        transport.postBuffer = (remote.transport as? HTTPTransport)?.options.postBuffer
        remote.transport = transport
        replay = transport
    }

    /// Writes the recorded session (the first connection) to the file; when replaying, checks
    /// that everything recorded was sent and nothing else.
    func save() throws {
        if let replay { return try replay.verify() }
        guard let session = recorder.sessions.first else { return }
        try session.write(toFile: path)
    }
}

extension Optional where Wrapped == SessionRecording {
    /// Runs `body` and then saves the recording, if there is one, whether `body` succeeded or
    /// not (a failed session is what one most wants to look at); `body`'s error wins.
    func saving<Result>(after body: () throws -> Result) throws -> Result {
        let result: Result
        do {
            result = try body()
        } catch {
            try? self?.save()
            throw error
        }
        try self?.save()
        return result
    }
}
