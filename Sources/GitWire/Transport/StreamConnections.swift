/// A blocking connection over a pair of streams (a socket, or a child's pipes).
final class StreamBlockingConnection: BlockingConnection {
    let greeting: [PktLine]
    private let pair: ByteStreamPair
    private let process: ChildProcess?
    private var isClosed = false

    init(pair: ByteStreamPair, process: ChildProcess?, greeting: [PktLine], timeout: Duration?) {
        self.pair = pair
        self.process = process
        self.greeting = greeting
        pair.setTimeout(timeout)
    }

    deinit { close() }

    func send(_ bytes: [UInt8]) throws { try pair.output.writeFully(bytes) }

    func receive() throws -> [UInt8] { try pair.input.read() }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        pair.close()
        process?.reap()
    }
}

/// A run-loop connection over a pair of streams.
final class StreamLoopConnection: LoopConnection, ByteStreamDelegate {
    let greeting: [PktLine]
    private let pair: ByteStreamPair
    private let process: ChildProcess?
    private weak var loop: EpollRunLoop?
    private var handler: (any LoopConnectionHandler)?

    init(pair: ByteStreamPair, process: ChildProcess?, greeting: [PktLine], loop: EpollRunLoop) {
        self.pair = pair
        self.process = process
        self.greeting = greeting
        self.loop = loop
    }

    func start(handler: any LoopConnectionHandler) {
        guard let loop else { return }
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
        handler = nil
        pair.input.close()
        pair.output.closeAfterWriting()
        if let loop {
            if pair.output.status != .closed { loop.addTimer(after: .seconds(5)) { [pair] _ in pair.close() } }
            process?.reap(in: loop)
        }
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
        case .openCompleted, .hasSpaceAvailable:
            break
        }
    }

    private func fail(_ error: any Error) {
        handler?.connection(self, didFail: error)
    }
}
