import GitWireCore

/// A TCP socket listening for connections, for servers in tests and for `record-proxy`.
/// Accept blocking with ``accept(timeout:)``, or schedule it in a run loop with a handler.
package final class ListeningSocket: LoopSource {
    private var descriptor: FileDescriptor?
    /// The address it listens on (with the port the kernel picked, if 0 was asked for).
    package let address: SocketAddress
    private var onAccept: ((ByteStreamPair) -> Void)?
    private weak var loop: EpollRunLoop?
    package var registration = LoopRegistration()
    /// Why the socket stopped accepting in its run loop, if it did.
    package private(set) var failure: (any Error)?

    /// Listens on `host` (a numeric address such as `127.0.0.1` or `::1`) and `port` (0: any free).
    package init(host: String = "127.0.0.1", port: Int = 0, backlog: Int = 128) throws {
        guard let bindAddress = try SocketAddress.resolve(host: host, port: port).first else {
            throw ResolveError(host: host, port: port, reason: "no address")
        }
        (descriptor, address) = try Socket.listen(on: bindAddress, backlog: backlog)
    }

    deinit { try? descriptor?.close() }

    /// Waits up to `timeout` for a connection; nil if none came. The streams are open.
    /// It runs the socket on the calling thread's own loop until a connection comes.
    package func accept(timeout: Duration?) throws -> ByteStreamPair? {
        guard let descriptor, onAccept == nil else { throw StreamError.closed }
        if case .done(let client) = try Socket.accept(descriptor) {
            let pair = ByteStreamPair(socket: client)
            try pair.open()
            return pair
        }
        let loop = try EpollRunLoop.privateLoop()
        var accepted: ByteStreamPair?
        schedule(in: loop) { [unowned self] pair in
            accepted = pair
            self.onAccept = nil
            loop.stop()
        }
        let timer = timeout.map { loop.addTimer(after: $0) { _ in loop.stop() } }
        loop.run()
        timer?.invalidate()
        if registration.token != 0 { loop.unregister(self) }
        onAccept = nil
        self.loop = nil
        if let failure { throw failure }
        return accepted
    }

    /// Accepts in `loop`: each connection's open streams go to `handler`, on the loop's thread.
    package func schedule(in loop: EpollRunLoop, handler: @escaping (ByteStreamPair) -> Void) {
        onAccept = handler
        self.loop = loop
        loop.register(self)
    }

    /// Stops listening and closes the socket.
    package func close() {
        if let loop, registration.token != 0 { loop.unregister(self) }
        onAccept = nil
        try? descriptor?.close()
        descriptor = nil
    }

    package func loopCannotWatch(_ error: any Error) {
        failure = error
        close()
    }

    package var watchedDescriptor: FileDescriptor? { descriptor }
    package var desiredInterest: EpollEvents { onAccept == nil ? [] : .readable }

    package func handle(_ events: EpollEvents, in loop: EpollRunLoop) {
        guard let descriptor else { return }
        while let handler = onAccept, case .done(let client) = try? Socket.accept(descriptor) {
            let pair = ByteStreamPair(socket: client)
            try? pair.open()
            handler(pair)
        }
    }
}

@available(*, unavailable)
extension ListeningSocket: Sendable {}
