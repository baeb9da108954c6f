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
        // Smart HTTP's push streams a large pack after a probe request: passed on, so that a
        // recorded push makes the requests a live one makes.
        if let streamed = connection as? any StreamedRequestConnection {
            return StreamedRecordingConnection(streamed: streamed, recorder: recorder, index: index)
        }
        return RecordingConnection(base: connection, recorder: recorder, index: index)
    }
}

/// Records a connection's bytes, standing between it and its handler.
class RecordingConnection: Connection, ConnectionHandler, HTTPConnectionObserver {
    private let base: any Connection
    let recorder: SessionRecorder
    let index: Int
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

/// Records a smart HTTP connection that can stream a request (a push's pack larger than
/// `http.postBuffer`): the probe request's body (a lone flush, as `record-proxy` records git's),
/// then the streamed request's body as the connection takes it, so that the recording holds
/// what went over the wire in the order it went.
final class StreamedRecordingConnection: RecordingConnection, StreamedRequestConnection {
    private let streamed: any StreamedRequestConnection

    init(streamed: any StreamedRequestConnection, recorder: SessionRecorder, index: Int) {
        self.streamed = streamed
        super.init(base: streamed, recorder: recorder, index: index)
    }

    var postBuffer: Int { streamed.postBuffer }

    func sendStreamed(_ prefix: [UInt8], then rest: @escaping () throws -> [UInt8]?) {
        recorder.record(SmartHTTP.probeBody, from: .client, in: index)
        // The body's start is recorded when the connection first asks for more of it: after
        // the probe was answered, not when a refused probe means it never goes.
        var unrecordedPrefix: [UInt8]? = prefix
        streamed.sendStreamed(prefix) { [recorder, index] in
            if let start = unrecordedPrefix {
                unrecordedPrefix = nil
                recorder.record(start, from: .client, in: index)
            }
            let chunk = try rest()
            if let chunk { recorder.record(chunk, from: .client, in: index) }
            return chunk
        }
    }
}
