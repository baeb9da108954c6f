import GitWire

/// A transport that records every byte of every connection it opens into a ``SessionRecorder``,
/// passing them through unchanged to and from another transport.
public struct RecordingTransport: Transport {
    /// The transport doing the real work.
    public let base: any Transport
    /// Where sessions are recorded.
    public let recorder: SessionRecorder
    /// The command line being recorded, kept in each session for people reading the fixture.
    public let command: String?

    /// Records what `base` carries into `recorder`.
    public init(wrapping base: any Transport, recorder: SessionRecorder, command: String? = nil) {
        self.base = base
        self.recorder = recorder
        self.command = command
    }

    /// The wrapped transport's kind.
    public var scheme: RemoteURL.Scheme { base.scheme }

    /// The wrapped transport's answer.
    public var connectionPersists: Bool { base.connectionPersists }

    /// A connection of `base` whose bytes are recorded as they pass.
    public func connect(
        _ request: ServiceRequest, timeout: Duration?, in loop: EpollRunLoop
    ) throws -> any Connection {
        let connection = try base.connect(request, timeout: timeout, in: loop)
        let host = connection.greeting.first?.payload.flatMap(DaemonRequestLine.init(payload:))?.host
        let index = recorder.begin(
            Session(
                transport: base.scheme.rawValue, service: request.service.rawValue, path: request.path,
                protocolVersion: request.protocolVersion, host: host, command: command))
        return RecordingConnection(base: connection, recorder: recorder, index: index)
    }
}

/// Records a connection's bytes, standing between it and its handler.
final class RecordingConnection: Connection, ConnectionHandler, HTTPConnectionObserver {
    private let base: any Connection
    private let recorder: SessionRecorder
    private let index: Int
    private var handler: (any ConnectionHandler)?
    private var isClosed = false

    init(base: any Connection, recorder: SessionRecorder, index: Int) {
        self.base = base
        self.recorder = recorder
        self.index = index
    }

    var greeting: [PktLine] { base.greeting }

    var standardErrorLines: [String] { base.standardErrorLines }

    func start(handler: any ConnectionHandler) {
        self.handler = handler
        base.start(handler: self)
    }

    func send(_ bytes: [UInt8]) {
        recorder.record(bytes, from: .client, in: index)
        base.send(bytes)
    }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        handler = nil
        recorder.recordEnd(from: .client, in: index)
        base.close()
    }

    func connectionDidOpen(_ connection: any Connection) { handler?.connectionDidOpen(self) }

    func connection(_ connection: any Connection, didReceive bytes: [UInt8]) {
        recorder.record(bytes, from: .server, in: index)
        handler?.connection(self, didReceive: bytes)
    }

    func connection(_ connection: any Connection, willSendHTTPRequest line: String) {
        recorder.recordHTTP(line, from: .client, in: index)
    }

    func connection(_ connection: any Connection, didReceiveHTTPResponse line: String) {
        recorder.recordHTTP(line, from: .server, in: index)
    }

    func connectionDidEnd(_ connection: any Connection) {
        recorder.recordEnd(from: .server, in: index)
        handler?.connectionDidEnd(self)
    }

    func connection(_ connection: any Connection, didFail error: any Error) {
        handler?.connection(self, didFail: error)
    }
}
