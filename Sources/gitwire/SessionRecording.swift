import GitWire
import GitWireReplay

/// `--record=<file>`: routes a remote's transport through a recorder and saves the session.
struct SessionRecording {
    let path: String
    let recorder = SessionRecorder()

    /// Starts recording everything `remote` sends and receives.
    init(path: String, remote: inout Remote) {
        self.path = path
        // Credentials in a URL (`https://user:password@host/…`) never reach the fixture.
        let arguments = CommandLine.arguments.dropFirst().filter { !$0.hasPrefix("--record") }
            .map(RemoteURL.withoutCredentials)
        let command = (["gitwire"] + arguments).joined(separator: " ")
        remote.transport = RecordingTransport(wrapping: remote.transport, recorder: recorder, command: command)
    }

    /// Writes the recorded session (the first connection) to the file.
    func save() throws {
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
