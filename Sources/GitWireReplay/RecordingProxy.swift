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
            let upstream = ByteStreamPair.connecting(
                toHost: upstreamHost, port: upstreamPort, connectTimeout: .seconds(10))
            let connection = ProxyConnection(
                client: client, upstream: upstream, loop: loop, limit: recordingLimit, onFinish: finished)
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

/// One forwarded connection: client and upstream streams, and what went through them.
final class ProxyConnection: ByteStreamDelegate, ProxiedConnection {
    private let client: ByteStreamPair
    private let upstream: ByteStreamPair
    private var recording: SessionAssembly
    private var clientEnded = false
    private var upstreamEnded = false
    private var finished = false
    private let onFinish: (any ProxiedConnection) -> Void

    init(
        client: ByteStreamPair, upstream: ByteStreamPair, loop: EpollRunLoop, limit: Int,
        onFinish: @escaping (any ProxiedConnection) -> Void
    ) {
        self.client = client
        self.upstream = upstream
        self.recording = SessionAssembly(
            Session(transport: "git", service: "", path: "", protocolVersion: .v0), limit: limit)
        self.onFinish = onFinish
        for stream in [client.input, client.output, upstream.input, upstream.output] as [ByteStream] {
            stream.delegate = self
        }
        client.schedule(in: loop)
        upstream.schedule(in: loop)
    }

    func start() {
        do {
            try upstream.open()
        } catch {
            closeAll()
        }
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

    func stream(_ stream: ByteStream, handle event: ByteStreamEvent) {
        let fromClient = stream === client.input || stream === client.output
        switch event {
        case .hasBytesAvailable:
            guard let input = stream as? ByteInputStream else { return }
            guard let bytes = try? input.read(), !bytes.isEmpty else { return }
            guard recording.record(bytes, from: fromClient ? .client : .server) else {
                closeAll()
                return
            }
            try? (fromClient ? upstream.output : client.output).write(bytes)
        case .endEncountered:
            recording.recordEnd(from: fromClient ? .client : .server)
            if fromClient { clientEnded = true } else { upstreamEnded = true }
            (fromClient ? upstream.output : client.output).closeAfterWriting()
            if clientEnded && upstreamEnded { closeAll() }
        case .errorOccurred:
            closeAll()
        case .openCompleted, .hasSpaceAvailable:
            break
        }
    }

    func closeAll() {
        client.close()
        upstream.close()
        guard !finished else { return }
        finished = true
        onFinish(self)
    }
}
