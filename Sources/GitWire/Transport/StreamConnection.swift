/// A connection over a pair of byte streams: a TCP socket, or the pipes of a child process. The
/// one connection kind of git://, local and (later) ssh transports.
final class StreamConnection: Connection, ByteStreamDelegate {
    let greeting: [PktLine]
    private let pair: ByteStreamPair
    private let process: ChildProcess?
    private weak var loop: EpollRunLoop?
    private var handler: (any ConnectionHandler)?
    private var isClosed = false

    init(pair: ByteStreamPair, process: ChildProcess?, greeting: [PktLine], loop: EpollRunLoop) {
        self.pair = pair
        self.process = process
        self.greeting = greeting
        self.loop = loop
    }

    func start(handler: any ConnectionHandler) {
        guard let loop, !isClosed else { return }
        self.handler = handler
        pair.input.delegate = self
        pair.output.delegate = self
        pair.schedule(in: loop)
        do {
            try pair.open()
        } catch {
            fail(error)
        }
    }

    var queuedByteCount: Int { pair.output.queuedByteCount }

    func send(_ bytes: [UInt8]) {
        do {
            try pair.output.write(bytes)
        } catch {
            fail(error)
        }
    }

    /// Closes the connection; bytes already queued (a farewell flush) still go out, for up to
    /// five seconds if the peer is slow to take them.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        handler = nil
        pair.input.close()
        pair.output.closeAfterWriting()
        guard let loop else {
            pair.close()
            process?.reap()
            return
        }
        if pair.output.status != .closed { loop.addTimer(after: .seconds(5)) { [pair] _ in pair.close() } }
        process?.reap(in: loop)
    }

    func stream(_ stream: ByteStream, handle event: ByteStreamEvent) {
        switch event {
        case .hasBytesAvailable:
            do {
                let bytes = try pair.input.read()
                if !bytes.isEmpty { handler?.connection(self, didReceive: bytes) }
            } catch {
                fail(error)
            }
        case .endEncountered:
            handler?.connectionDidEnd(self)
        case .errorOccurred:
            fail(stream.error ?? StreamError.closed)
        case .openCompleted:
            if stream === pair.input { handler?.connectionDidOpen(self) }
        case .hasSpaceAvailable:
            handler?.connectionDidDrain(self)
        }
    }

    private func fail(_ error: any Error) {
        handler?.connection(self, didFail: error)
    }
}
