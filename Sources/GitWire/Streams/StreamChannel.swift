/// The descriptor behind one or two streams (a socket is read and written through one
/// descriptor; a pipe end carries one stream), with its connect state and its place in a run loop.
final class StreamChannel: LoopSource {
    private(set) var descriptor: FileDescriptor?
    let isSocket: Bool
    /// A TCP connection this side opened: reads ask for immediate ACKs.
    let isTCPClient: Bool
    /// Set until a TCP connect succeeds.
    private var connector: TCPConnector?
    private(set) var isConnecting = false
    private var connectTimer: RunLoopTimer?
    /// Streams not yet closed.
    private var openStreams: Int
    private var isAborting = false
    /// Scheduled streams, held while they are in the loop.
    var scheduledInput: ByteInputStream?
    var scheduledOutput: ByteOutputStream?
    weak var loop: EpollRunLoop?
    var registration = LoopRegistration()

    /// A channel over an open descriptor, used by `streams` streams.
    init(descriptor: FileDescriptor, streams: Int) {
        self.descriptor = descriptor
        self.isSocket = descriptor.isSocket
        self.isTCPClient = false
        self.openStreams = streams
    }

    /// A TCP channel that connects when first opened.
    init(connector: TCPConnector) {
        self.connector = connector
        self.isSocket = true
        self.isTCPClient = true
        self.openStreams = 2
    }

    deinit { try? descriptor?.close() }

    var isConnected: Bool { descriptor != nil && connector == nil }

    // MARK: Connecting

    /// Connects now, blocking at most for the connector's timeout.
    func connectBlocking() throws {
        guard var connector else { return }
        descriptor = try connector.connectBlocking()
        self.connector = nil
    }

    /// Starts a non-blocking connect in `loop`; its streams hear of the outcome as events.
    func startConnecting(in loop: EpollRunLoop) {
        guard connector != nil, !isConnecting else { return }
        isConnecting = true
        if let timeout = connector?.timeout {
            connectTimer = loop.addTimer(after: timeout) { [weak self] _ in
                guard let self, self.isConnecting, let connector = self.connector else { return }
                self.fail(connector.timeoutError)
            }
        }
        tryNextAddress(in: loop)
    }

    private func tryNextAddress(in loop: EpollRunLoop) {
        do {
            let (fd, connected) = try connector!.next()
            descriptor = fd
            if connected { finishConnect(in: loop) } else { loop.updateInterest(self) }
        } catch {
            fail(error)
        }
    }

    private func finishConnect(in loop: EpollRunLoop) {
        connector = nil
        isConnecting = false
        connectTimer?.invalidate()
        connectTimer = nil
        loop.updateInterest(self)
        scheduledInput?.channelDidOpen()
        scheduledOutput?.channelDidOpen()
    }

    /// Marks the channel failed: its streams get `errorOccurred`.
    func fail(_ error: any Error) {
        isConnecting = false
        connectTimer?.invalidate()
        connectTimer = nil
        if connector != nil, let descriptor {
            loop?.forgetDescriptor(of: self)
            try? descriptor.close()
            self.descriptor = nil
        }
        scheduledInput?.fail(error)
        scheduledOutput?.fail(error)
        if let loop { loop.updateInterest(self) }
    }

    // MARK: Run loop

    var watchedDescriptor: FileDescriptor? { descriptor }

    var desiredInterest: EpollEvents {
        if isConnecting { return descriptor == nil ? [] : .writable }
        var interest: EpollEvents = []
        if let input = scheduledInput, input.wantsReadiness { interest.insert(.readable) }
        if let output = scheduledOutput, output.wantsReadiness { interest.insert(.writable) }
        return interest
    }

    func handle(_ events: EpollEvents, in loop: EpollRunLoop) {
        if isConnecting {
            guard let descriptor, !events.isEmpty else { return }
            loop.forgetDescriptor(of: self)
            if connector!.finish(descriptor) {
                finishConnect(in: loop)
            } else {
                self.descriptor = nil
                tryNextAddress(in: loop)
            }
            return
        }
        let trouble = events.contains(.hangUp) || events.contains(.error)
        if let output = scheduledOutput, output.wantsReadiness, events.contains(.writable) || trouble {
            output.flushQueued(in: loop)
        }
        if let input = scheduledInput, input.wantsReadiness, events.contains(.readable) || trouble {
            loop.deliver(.hasBytesAvailable, to: input)
        }
        if registration.token != 0 { loop.updateInterest(self) }
    }

    /// Adds or drops a scheduled stream and tells the loop.
    func updateSchedule(in loop: EpollRunLoop) {
        let hasStreams = scheduledInput != nil || scheduledOutput != nil
        if hasStreams {
            precondition(self.loop == nil || self.loop === loop, "both streams of a pair must use one run loop")
            if registration.token == 0 {
                self.loop = loop
                loop.register(self)
            } else {
                loop.updateInterest(self)
            }
        } else if registration.token != 0 {
            loop.unregister(self)
            self.loop = nil
        }
    }

    // MARK: Closing

    /// Makes closing reset a TCP connection instead of ending it in order.
    func prepareAbort() {
        isAborting = true
        if isSocket, let descriptor { Socket.setResetOnClose(descriptor) }
    }

    /// One of the channel's streams closed. A socket's write side is shut down so the peer sees
    /// the end; the descriptor closes when no stream is left.
    func streamDidClose(reading: Bool) {
        openStreams -= 1
        if openStreams <= 0 {
            connectTimer?.invalidate()
            if let loop, registration.token != 0 { loop.unregister(self) }
            loop = nil
            try? descriptor?.close()
            descriptor = nil
            connector = nil
            isConnecting = false
        } else if !reading, isSocket, !isAborting, let descriptor, connector == nil {
            Socket.shutdown(descriptor, reading: false, writing: true)
        }
    }
}
