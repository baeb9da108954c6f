import GitWire

/// Collects the sessions of a ``RecordingTransport`` (the recording proxies write theirs to
/// fixture files as each connection ends), safe to use from any thread.
public final class SessionRecorder: Sendable {
    private let state = Locked<[SessionAssembly]>([])

    /// An empty recorder.
    public init() {}

    /// The sessions so far, in the order their connections opened.
    public var sessions: [Session] { state.withLock { $0.map(\.session) } }

    /// Starts a session; returns its number for ``record(_:from:in:)``.
    func begin(_ session: Session) -> Int {
        state.withLock { sessions in
            sessions.append(SessionAssembly(session))
            return sessions.count - 1
        }
    }

    /// Adds bytes `direction` sent to session `index`.
    func record(_ bytes: [UInt8], from direction: Session.Direction, in index: Int) {
        state.withLock { _ = $0[index].record(bytes, from: direction) }
    }

    /// Adds an HTTP request or status line `direction` sent to session `index`.
    func recordHTTP(_ line: String, from direction: Session.Direction, in index: Int) {
        state.withLock { $0[index].recordHTTP(line, from: direction) }
    }

    /// Records that `direction` closed its side of session `index`.
    func recordEnd(from direction: Session.Direction, in index: Int) {
        state.withLock { $0[index].recordEnd(from: direction) }
    }
}

/// The parts of a git:// request line (`git-upload-pack /path\0host=HOST\0\0version=2\0`).
struct DaemonRequestLine: Hashable {
    var service: String
    var path: String
    var host: String?
    var protocolVersion: ProtocolVersion

    /// Reads the first packet's payload; nil if it is not a request line.
    init?(payload: [UInt8]) {
        let fields = payload.split(separator: 0, omittingEmptySubsequences: false)
        guard let command = fields.first, let space = command.firstIndex(of: 0x20) else { return nil }
        service = String(decoding: command[..<space], as: UTF8.self)
        path = String(decoding: command[(space + 1)...], as: UTF8.self)
        host = nil
        protocolVersion = .v0
        for field in fields.dropFirst() {
            let text = String(decoding: field, as: UTF8.self)
            if text.hasPrefix("host=") { host = String(text.dropFirst(5)) }
            if text.hasPrefix("version="), let number = Int(text.dropFirst(8)),
                let version = ProtocolVersion(rawValue: number)
            {
                protocolVersion = version
            }
        }
    }
}
