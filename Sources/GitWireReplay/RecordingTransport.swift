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

    public var name: String { base.name }

    private func begin(_ request: ServiceRequest, greeting: [PktLine]) -> Int {
        let host = greeting.first?.payload.flatMap(DaemonRequestLine.init(payload:))?.host
        return recorder.begin(
            Session(
                transport: base.name, service: request.service, path: request.path,
                protocolVersion: request.protocolVersion, host: host, command: command))
    }

    public func connect(_ request: ServiceRequest, timeout: Duration?) throws -> any BlockingConnection {
        let connection = try base.connect(request, timeout: timeout)
        return RecordingBlockingConnection(
            base: connection, recorder: recorder, index: begin(request, greeting: connection.greeting))
    }

    public func connect(
        _ request: ServiceRequest, timeout: Duration?, in loop: EpollRunLoop
    ) throws -> any LoopConnection {
        let connection = try base.connect(request, timeout: timeout, in: loop)
        return RecordingLoopConnection(
            base: connection, recorder: recorder, index: begin(request, greeting: connection.greeting))
    }
}

/// Records a blocking connection's bytes.
final class RecordingBlockingConnection: BlockingConnection {
    private let base: any BlockingConnection
    private let recorder: SessionRecorder
    private let index: Int
    private var isClosed = false

    init(base: any BlockingConnection, recorder: SessionRecorder, index: Int) {
        self.base = base
        self.recorder = recorder
        self.index = index
    }

    var greeting: [PktLine] { base.greeting }

    func send(_ bytes: [UInt8]) throws {
        recorder.record(bytes, from: .client, in: index)
        try base.send(bytes)
    }

    func receive() throws -> [UInt8] {
        let bytes = try base.receive()
        if bytes.isEmpty {
            recorder.recordEnd(from: .server, in: index)
        } else {
            recorder.record(bytes, from: .server, in: index)
        }
        return bytes
    }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        recorder.recordEnd(from: .client, in: index)
        base.close()
    }
}

/// Records a run-loop connection's bytes, standing between it and its handler.
final class RecordingLoopConnection: LoopConnection, LoopConnectionHandler {
    private let base: any LoopConnection
    private let recorder: SessionRecorder
    private let index: Int
    private var handler: (any LoopConnectionHandler)?

    init(base: any LoopConnection, recorder: SessionRecorder, index: Int) {
        self.base = base
        self.recorder = recorder
        self.index = index
    }

    var greeting: [PktLine] { base.greeting }

    func start(handler: any LoopConnectionHandler) {
        self.handler = handler
        base.start(handler: self)
    }

    func send(_ bytes: [UInt8]) {
        recorder.record(bytes, from: .client, in: index)
        base.send(bytes)
    }

    func close() {
        guard handler != nil else { return }
        handler = nil
        recorder.recordEnd(from: .client, in: index)
        base.close()
    }

    func connection(_ connection: any LoopConnection, didReceive bytes: [UInt8]) {
        recorder.record(bytes, from: .server, in: index)
        handler?.connection(self, didReceive: bytes)
    }

    func connectionDidEnd(_ connection: any LoopConnection) {
        recorder.recordEnd(from: .server, in: index)
        handler?.connectionDidEnd(self)
    }

    func connection(_ connection: any LoopConnection, didFail error: any Error) {
        handler?.connection(self, didFail: error)
    }
}
