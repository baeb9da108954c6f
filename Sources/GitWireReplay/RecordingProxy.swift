import GitWire

/// A git:// proxy that records every connection it forwards: any client (git itself included)
/// connects to it, it connects to the upstream daemon, passes the bytes through unchanged both
/// ways, and when both sides have closed writes the session as a fixture. A session records at
/// most `recordingLimit` bytes; beyond, the connection is closed and fails with
/// ``RecordingLimitError``, and no fixture is written.
///
/// It runs on an `EpollRunLoop`; all its work happens on the loop's thread.
public final class RecordingProxy {
    private let recorder: ProxyRecorder
    /// Paths of the fixtures written so far.
    public var writtenFixtures: [String] { recorder.writtenFixtures }
    /// Called after each fixture is written (or fails to be, with the error).
    public var onFinishedConnection: ((Result<String, any Error>) -> Void)? {
        get { recorder.onFinishedConnection }
        set { recorder.onFinishedConnection = newValue }
    }

    /// Listens on `host`:`port` and forwards to `upstreamHost`:`upstreamPort`, writing fixtures
    /// into `outputDirectory` as `connection-001.session`, `connection-002.session`, …, each of at
    /// most `recordingLimit` bytes of session data.
    public init(
        listenHost: String, listenPort: Int, upstreamHost: String, upstreamPort: Int, outputDirectory: String,
        loop: EpollRunLoop, recordingLimit: Int = HTTPRecordingProxy.defaultRecordingLimit
    ) throws {
        recorder = try ProxyRecorder(host: listenHost, port: listenPort, outputDirectory: outputDirectory, loop: loop) {
            client, finished in
            let upstream = StreamChannel.connection(
                toHost: upstreamHost, port: upstreamPort, connectTimeout: .seconds(10), resolver: SystemResolver(),
                greeting: [], loop: loop)
            let connection = ProxyConnection(
                client: client, upstream: upstream, limit: recordingLimit, onFinish: finished)
            connection.start()
            return connection
        }
    }

    /// The address the proxy listens on.
    public var address: SocketAddress { recorder.listener.address }

    /// Connections being forwarded now.
    public var openConnectionCount: Int { recorder.openConnectionCount }

    /// Stops accepting and closes every open connection.
    public func close() { recorder.close() }
}

@available(*, unavailable)
extension RecordingProxy: Sendable {}

/// One forwarded connection: the client's and the upstream's connections (the channels the
/// transports use), and what went through them.
final class ProxyConnection: ConnectionHandler, ProxiedConnection {
    private let client: StreamChannel
    private let upstream: StreamChannel
    private var recording: SessionAssembly
    private var clientEnded = false
    private var upstreamEnded = false
    private var finished = false
    private let onFinish: (any ProxiedConnection) -> Void

    init(
        client: StreamChannel, upstream: StreamChannel, limit: Int,
        onFinish: @escaping (any ProxiedConnection) -> Void
    ) {
        self.client = client
        self.upstream = upstream
        self.recording = SessionAssembly(
            Session(transport: "git", service: "", path: "", protocolVersion: .v0), limit: limit)
        self.onFinish = onFinish
    }

    /// Starts reading the client and connecting upstream (what the client sends meanwhile waits
    /// for the connection).
    func start() {
        client.start(handler: self)
        upstream.start(handler: self)
    }

    /// The recorded session, with the header taken from the client's request line.
    func session() throws -> Session {
        var session = try recording.result()
        var decoder = PktLineDecoder()
        decoder.append(session.bytes(from: .client))
        guard let first = try decoder.next()?.payload, let request = DaemonRequestLine(payload: first) else {
            throw ProtocolError("the client did not send a git:// request line")
        }
        session.service = request.service
        session.path = request.path
        session.host = request.host
        session.protocolVersion = request.protocolVersion
        return session
    }

    func connectionDidOpen(_ connection: any Connection) {}

    func connection(_ connection: any Connection, didReceive bytes: [UInt8]) {
        let fromClient = connection === client
        guard recording.record(bytes, from: fromClient ? .client : .server) else {
            closeAll()
            return
        }
        (fromClient ? upstream : client).send(bytes)
    }

    func connectionDidEnd(_ connection: any Connection) {
        let fromClient = connection === client
        recording.recordEnd(from: fromClient ? .client : .server)
        if fromClient { clientEnded = true } else { upstreamEnded = true }
        // The other side sees the end once it has what came before.
        (fromClient ? upstream : client).finishSending()
        if clientEnded && upstreamEnded { closeAll() }
    }

    func connection(_ connection: any Connection, didFail error: any Error) { closeAll() }

    func closeAll() {
        client.close()
        upstream.close()
        guard !finished else { return }
        finished = true
        onFinish(self)
    }
}
