import GitWireCore

/// A TCP socket listening for connections, for servers in tests and for `record-proxy`.
/// Accept blocking with ``acceptDescriptor(timeout:)``, or in a run loop with a handler
/// (``acceptConnections(in:handler:)``: each connection a ``StreamChannel``). The stream face has
/// its own forms (`accept(timeout:)`, `schedule(in:handler:)`), giving a ``ByteStreamPair``.
package final class ListeningSocket: LoopSource {
    private var descriptor: FileDescriptor?
    /// The address it listens on (with the port the kernel picked, if 0 was asked for).
    package let address: SocketAddress
    private var onAccept: ((FileDescriptor) -> Void)?
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

    /// Waits up to `timeout` for a connection and returns its socket (non-blocking, close-on-exec);
    /// nil if none came. It runs the socket on the calling thread's own loop until a connection
    /// comes.
    package func acceptDescriptor(timeout: Duration?) throws -> FileDescriptor? {
        guard let descriptor, onAccept == nil else { throw StreamError.closed }
        if case .done(let client) = try Socket.accept(descriptor) { return client }
        let loop = try EpollRunLoop.privateLoop()
        var accepted: FileDescriptor?
        acceptDescriptors(in: loop) { [unowned self] client in
            accepted = client
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

    /// Accepts in `loop`: each connection's socket goes to `handler`, on the loop's thread.
    package func acceptDescriptors(in loop: EpollRunLoop, handler: @escaping (FileDescriptor) -> Void) {
        onAccept = handler
        self.loop = loop
        loop.register(self)
    }

    /// Accepts in `loop`: each connection goes to `handler` as the ``StreamChannel`` that is its
    /// ``Connection`` (not started), on the loop's thread.
    package func acceptConnections(in loop: EpollRunLoop, handler: @escaping (StreamChannel) -> Void) {
        acceptDescriptors(in: loop) { client in handler(StreamChannel.connection(socket: client, loop: loop)) }
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
        while let handler = onAccept, case .done(let client) = try? Socket.accept(descriptor) { handler(client) }
    }
}

@available(*, unavailable)
extension ListeningSocket: Sendable {}
