import GitWireCore

/// The descriptor behind one or two streams (a socket is read and written through one
/// descriptor; a pipe end carries one stream), with its connect state and its place in a run loop.
package final class StreamChannel: LoopSource {
    private(set) var descriptor: FileDescriptor?
    package let isSocket: Bool
    /// A TCP connection this side opened: reads ask for immediate ACKs.
    package let isTCPClient: Bool
    /// Set until a TCP connect succeeds.
    private var connector: TCPConnector?
    private(set) var isConnecting = false
    private var connectTimer: RunLoopTimer?
    /// Keeps the loop running while a host lookup is on a resolver thread.
    private var lookupKeepAlive: RunLoopTimer?
    /// Streams not yet closed.
    private var openStreams: Int
    private var isAborting = false
    /// Scheduled streams, held while they are in the loop.
    package var scheduledInput: ByteInputStream?
    package var scheduledOutput: ByteOutputStream?
    package weak var loop: EpollRunLoop?
    package var registration = LoopRegistration()

    /// A channel over an open descriptor, used by `streams` streams.
    package init(descriptor: FileDescriptor, streams: Int) {
        self.descriptor = descriptor
        self.isSocket = descriptor.isSocket
        self.isTCPClient = false
        self.openStreams = streams
    }

    /// A TCP channel that connects when first opened.
    package init(connector: TCPConnector) {
        self.connector = connector
        self.isSocket = true
        self.isTCPClient = true
        self.openStreams = 2
    }

    deinit { try? descriptor?.close() }

    package var isConnected: Bool { descriptor != nil && connector == nil }

    // MARK: Connecting

    /// Starts a non-blocking connect in `loop`; its streams hear of the outcome as events.
    package func startConnecting(in loop: EpollRunLoop) {
        guard connector != nil, !isConnecting else { return }
        isConnecting = true
        if let timeout = connector?.timeout {
            connectTimer = loop.addTimer(after: timeout) { [weak self] _ in
                guard let self, self.isConnecting, let connector = self.connector else { return }
                self.fail(connector.timeoutError)
            }
        }
        if let connector, connector.addresses == nil {
            if let addresses = connector.resolver.immediateAddresses(host: connector.host, port: connector.port) {
                self.connector?.addresses = addresses
            } else {
                resolveOffLoop(connector, in: loop)
                return
            }
        }
        tryNextAddress(in: loop)
    }

    /// Looks the host up on a resolver thread and continues the connect on the loop with the
    /// answer; the loop serves everything else meanwhile, and the connect timer still runs.
    private func resolveOffLoop(_ connector: TCPConnector, in loop: EpollRunLoop) {
        let target = LoopBound<() -> StreamChannel?>({ [weak self] in self }, on: loop)
        let handle = loop.handle
        let (host, port, resolver) = (connector.host, connector.port, connector.resolver)
        // The loop must not run out of work while the answer is on its way (a loop with nothing
        // else to wait for returned at once, and its blocking caller found no result); the timer
        // goes as soon as the answer comes or the channel fails or closes meanwhile.
        let keepAlive = loop.addTimer(after: .seconds(3600), repeating: .seconds(3600)) { _ in }
        lookupKeepAlive = keepAlive
        let timer = Transferred(keepAlive)
        ResolverPool.shared.submit {
            let result = Result { try resolver.resolve(host: host, port: port) }
            handle.post {
                timer.value.invalidate()
                guard let channel = target.value?(), channel.isConnecting, channel.connector?.addresses == nil,
                    let loop = channel.loop
                else { return }
                switch result {
                case .success(let addresses):
                    channel.connector?.addresses = addresses
                    channel.tryNextAddress(in: loop)
                case .failure(let error):
                    channel.fail(error)
                }
            }
        }
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

    package func loopCannotWatch(_ error: any Error) { fail(error) }

    /// Marks the channel failed: its streams get `errorOccurred`.
    package func fail(_ error: any Error) {
        lookupKeepAlive?.invalidate()
        lookupKeepAlive = nil
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

    package var watchedDescriptor: FileDescriptor? { descriptor }

    package var desiredInterest: EpollEvents {
        if isConnecting { return descriptor == nil ? [] : .writable }
        var interest: EpollEvents = []
        if let input = scheduledInput, input.wantsReadiness { interest.insert(.readable) }
        if let output = scheduledOutput, output.wantsReadiness { interest.insert(.writable) }
        return interest
    }

    package func handle(_ events: EpollEvents, in loop: EpollRunLoop) {
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
    package func updateSchedule(in loop: EpollRunLoop) {
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
    package func prepareAbort() {
        isAborting = true
        if isSocket, let descriptor { Socket.setResetOnClose(descriptor) }
    }

    /// One of the channel's streams closed. A socket's write side is shut down so the peer sees
    /// the end; the descriptor closes when no stream is left.
    package func streamDidClose(reading: Bool) {
        openStreams -= 1
        if openStreams <= 0 {
            connectTimer?.invalidate()
            lookupKeepAlive?.invalidate()
            lookupKeepAlive = nil
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
