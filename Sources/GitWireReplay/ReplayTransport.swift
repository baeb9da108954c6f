import GitWire

/// A transport that plays a recorded ``Session`` back instead of connecting anywhere: it serves
/// the server's bytes (in chunks of ``chunking``) and checks that what the client sends matches
/// the recording, failing with a ``ReplayMismatchError`` that shows the first differing pkt-line.
///
/// After the exchange, ``verify()`` confirms the client sent everything recorded.
public struct ReplayTransport: Transport {
    /// The recording played back.
    public let session: Session
    /// How the server's bytes are split.
    public let chunking: ReplayChunking
    /// `http.postBuffer` of the replayed smart HTTP session's client: a push's body larger than
    /// this (less one packet's room) is sent as a live one is, after git's probe request. Nil:
    /// every body goes whole.
    package var postBuffer: Int?
    private let state = SharedState()

    /// Plays `session` back, splitting the server's bytes by `chunking`.
    public init(_ session: Session, chunking: ReplayChunking = .whole) {
        self.session = session
        self.chunking = chunking
    }

    /// Plays the fixture file at `path` back.
    public init(fixture path: String, chunking: ReplayChunking = .whole) throws {
        self.init(try Session(contentsOfFile: path), chunking: chunking)
    }

    /// The recorded transport's kind.
    public var scheme: RemoteURL.Scheme { RemoteURL.Scheme(rawValue: session.transport) ?? .file }

    /// False for recordings of smart HTTP, whose requests each stand alone (stateless RPC).
    public var connectionPersists: Bool { scheme != .http && scheme != .https }

    /// Throws if no connection was opened, the client sent less than recorded, or a mismatch
    /// happened (even one the client's code swallowed).
    public func verify() throws {
        try state.lock.withLock { state in
            if let mismatch = state.mismatch { throw mismatch }
            guard state.connected else { throw ReplayMismatchError.incomplete(missing: session.bytes(from: .client)) }
            if !state.unsentClientBytes.isEmpty {
                throw ReplayMismatchError.incomplete(missing: state.unsentClientBytes)
            }
        }
    }

    /// A connection to the replaying server; it serves one chunk per loop iteration.
    public func connect(
        _ request: ServiceRequest, timeout: Duration?, in loop: EpollRunLoop
    ) throws -> any Connection {
        let player = try makePlayer(request)
        if let postBuffer, !connectionPersists {
            return StreamedReplayConnection(player: player, loop: loop, postBuffer: postBuffer)
        }
        return ReplayConnection(player: player, loop: loop)
    }

    private func makePlayer(_ request: ServiceRequest) throws -> ReplayPlayer {
        try state.lock.withLock { state in
            guard !state.connected else { throw ReplayMismatchError.extraConnection }
            state.connected = true
            state.unsentClientBytes = session.bytes(from: .client)
        }
        for (asked, recorded, what) in [
            (request.service.rawValue, session.service, "service"), (request.path, session.path, "path"),
            (String(request.protocolVersion.rawValue), String(session.protocolVersion.rawValue), "protocol version"),
        ] where asked != recorded {
            let error = ReplayMismatchError.request(
                "the client asked for \(what) '\(asked)', the recording for '\(recorded)'")
            state.lock.withLock { $0.mismatch = error }
            throw error
        }
        let greeting: [PktLine] =
            scheme == .git ? [request.daemonRequest(host: session.host ?? "")] : []
        return ReplayPlayer(
            script: ReplayScript(session: session, chunking: chunking), greeting: greeting, state: state)
    }

    /// What the connections report back to the transport, for ``verify()``.
    final class SharedState: Sendable {
        struct Values {
            var connected = false
            var unsentClientBytes: [UInt8] = []
            var mismatch: ReplayMismatchError?
        }
        let lock = Locked(Values())
    }
}

/// The replaying server of one connection.
final class ReplayPlayer {
    private var script: ReplayScript
    let greeting: [PktLine]
    private let state: ReplayTransport.SharedState

    init(script: ReplayScript, greeting: [PktLine], state: ReplayTransport.SharedState) {
        self.script = script
        self.greeting = greeting
        self.state = state
    }

    func receiveFromClient(_ bytes: [UInt8]) throws {
        do {
            try script.receiveFromClient(bytes)
        } catch let error as ReplayMismatchError {
            state.lock.withLock { $0.mismatch = $0.mismatch ?? error }
            throw error
        }
        let unsent = script.remainingClientBytes
        state.lock.withLock { $0.unsentClientBytes = unsent }
    }

    func nextServerStep() -> ReplayScript.ServerStep { script.nextServerStep() }

    func fail(_ error: ReplayMismatchError) {
        state.lock.withLock { $0.mismatch = $0.mismatch ?? error }
    }
}

/// A run-loop connection to a replaying server: one chunk per loop iteration.
class ReplayConnection: Connection {
    private let player: ReplayPlayer
    private weak var loop: EpollRunLoop?
    fileprivate var handler: (any ConnectionHandler)?
    private var pumping = false

    init(player: ReplayPlayer, loop: EpollRunLoop) {
        self.player = player
        self.loop = loop
    }

    var greeting: [PktLine] { player.greeting }

    func start(handler: any ConnectionHandler) {
        self.handler = handler
        handler.connectionDidOpen(self)
        schedulePump()
    }

    func send(_ bytes: [UInt8]) {
        guard handler != nil else { return }
        do {
            try player.receiveFromClient(bytes)
            schedulePump()
        } catch {
            handler?.connection(self, didFail: error)
        }
    }

    func close() { handler = nil }

    private func schedulePump() {
        guard !pumping, let loop else { return }
        pumping = true
        loop.addTimer(after: .zero) { [weak self] _ in self?.pump() }
    }

    private func pump() {
        pumping = false
        guard let handler else { return }
        switch player.nextServerStep() {
        case .bytes(let bytes):
            handler.connection(self, didReceive: bytes)
            schedulePump()
        case .end:
            handler.connectionDidEnd(self)
        case .waitingForClient(let expected):
            // The client reacts to what it receives within the callback, so if it has not sent
            // by now it never will: the recording and the client disagree.
            let error = ReplayMismatchError.clientShouldSend(expected)
            player.fail(error)
            handler.connection(self, didFail: error)
        }
    }
}

/// A replayed smart HTTP connection that streams a large push's body as the live one does:
/// git's probe request (a lone flush) first, then the body as it is made, each compared with
/// the recording.
final class StreamedReplayConnection: ReplayConnection, StreamedRequestConnection {
    let postBuffer: Int

    init(player: ReplayPlayer, loop: EpollRunLoop, postBuffer: Int) {
        self.postBuffer = postBuffer
        super.init(player: player, loop: loop)
    }

    func sendStreamed(_ prefix: [UInt8], then rest: @escaping () throws -> [UInt8]?) {
        send(SmartHTTP.probeBody)
        send(prefix)
        do {
            while handler != nil, let chunk = try rest() { send(chunk) }
        } catch {
            handler?.connection(self, didFail: error)
        }
    }
}
