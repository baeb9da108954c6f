import GitWireCore

/// The one object between a run loop and what uses a descriptor: it connects (a TCP connect,
/// its host looked up off the loop), reads, queues and writes, and closes. It is a
/// ``Connection`` itself — the connection of the git://, local and ssh transports, whose handler
/// (the exchange engine) hears each read's bytes straight from the channel — and it is what the
/// public streams (``ByteInputStream``, ``ByteOutputStream``) are a face over.
///
/// A socket is one channel, read and written through one descriptor. A child process is one
/// channel too: it reads the child's standard output and writes, through a second channel that
/// reports to it, the child's standard input; a third one reads its standard error. That error
/// output is read on the loop as it comes: each piece goes to the ``ProgramErrorOutput``
/// (this process's standard error by default, as git's children write there), and its last lines
/// are kept for the error that explains a failure (``standardErrorLines``). When the child's
/// output ends or breaks, the end reaches the handler only once its standard error has ended
/// too (or after a short grace), so the explanation is there when the exchange fails. Closing
/// reaps the child on the loop (or it is reaped the moment it ends, for ``onExit``). The sending
/// direction can close alone (``finishSending()``): a child's standard input, a socket's writing
/// side.
package final class StreamChannel: LoopSource {
    private(set) var descriptor: FileDescriptor?
    package let isSocket: Bool
    /// A TCP connection this side opened: reads ask for immediate ACKs.
    package let isTCPClient: Bool
    /// Set until a TCP connect succeeds.
    var connector: TCPConnector?
    private(set) var isConnecting = false
    private var connectTimer: RunLoopTimer?
    /// Keeps the loop running while a host lookup is on a resolver thread.
    private var lookupKeepAlive: RunLoopTimer?
    /// Directions (streams, or a connection's reading and writing) not yet closed.
    var openStreams: Int
    private var isAborting = false
    /// Scheduled streams, held while they are in the loop.
    package var scheduledInput: ByteInputStream?
    package var scheduledOutput: ByteOutputStream?
    package weak var loop: EpollRunLoop?
    package var registration = LoopRegistration()

    // Bytes queued for writing (by a scheduled output stream or the connection).
    private var queue: [[UInt8]] = []
    private var queueHeadOffset = 0
    /// Bytes queued and not yet written.
    package private(set) var queuedBytes = 0
    /// Whether this direction closes once its queue is written.
    var closesWhenDrained = false

    // The connection, on the channel that is one.
    /// Packets sent first (the git:// request line).
    package let greeting: [PktLine]
    let isConnection: Bool
    var handler: (any ConnectionHandler)?
    var isStarted = false
    var isClosed = false
    var isConnectionOpen = false
    var hasFailed = false
    /// Whether the loop should watch for readability on the connection's behalf.
    var isReading = false
    /// A child's standard input, when it is not this channel's descriptor.
    var writeEnd: StreamChannel?
    /// A child's standard error, while it is being read.
    var errorEnd: StreamChannel?
    /// The connection a child's standard input or error channel reports to.
    weak var owner: StreamChannel?
    var process: ChildProcess?
    /// Reaps the child from the start, when the connection has an ``onExit``.
    var exitWatch: ChildExitWatch?
    /// Called on the loop with the child's exit code the moment it ends: the connection reaps
    /// it from its start on (without one, it is reaped once closed). Set before starting.
    package var onExit: ((Int32) -> Void)?
    /// Called on the loop with each piece of the child's standard error as it is read, raw
    /// (besides ``ProgramErrorOutput`` and ``standardErrorLines``).
    package var onStandardError: (([UInt8]) -> Void)?
    /// Set once the exit watch has reaped the child.
    var childHasExited = false
    /// Set by ``finishSending()``: nothing more may be sent.
    var isSendingFinished = false
    var errorOutput = ProgramErrorOutput.standardError
    var errorLines = StandardErrorLines()
    /// The end or failure of the output, held until the standard error has ended.
    var heldEnd: (() -> Void)?
    var graceTimer: RunLoopTimer?
    /// Keeps the connection (and the reading of the child's standard error) alive after
    /// ``close()`` until that standard error ends.
    var keptAlive: StreamChannel?

    /// How long an end waits for the child's standard error to end too (a grandchild may hold it
    /// open).
    static let standardErrorGrace: Duration = .seconds(2)

    /// A channel over an open descriptor, used by `streams` streams (or, if `isConnection`, a
    /// ``Connection`` reading and writing it).
    package init(descriptor: FileDescriptor, streams: Int, isConnection: Bool = false) {
        self.descriptor = descriptor
        self.isSocket = descriptor.isSocket
        self.isTCPClient = false
        self.openStreams = streams
        self.greeting = []
        self.isConnection = isConnection
    }

    /// The connection of a connected socket (one a ``ListeningSocket`` accepted), which it owns:
    /// open as soon as it starts in `loop`.
    package static func connection(socket: FileDescriptor, loop: EpollRunLoop) -> StreamChannel {
        let channel = StreamChannel(descriptor: socket, streams: 2, isConnection: true)
        channel.loop = loop
        return channel
    }

    /// A TCP channel that connects when first opened; a ``Connection`` that sends `greeting` first
    /// if `isConnection`.
    package init(connector: TCPConnector, greeting: [PktLine] = [], isConnection: Bool = false) {
        self.connector = connector
        self.isSocket = true
        self.isTCPClient = true
        self.openStreams = 2
        self.greeting = greeting
        self.isConnection = isConnection
    }

    /// The connection of a child process: reads `output`, writes `input` through a channel of its
    /// own, reads `standardError` if given, and reaps the process when closed.
    private init(
        process: ChildProcess, output: FileDescriptor, input: FileDescriptor, standardError: FileDescriptor?,
        errorOutput: ProgramErrorOutput
    ) {
        self.descriptor = output
        self.isSocket = false
        self.isTCPClient = false
        self.openStreams = 1
        self.greeting = []
        self.isConnection = true
        self.process = process
        self.errorOutput = errorOutput
        let writeEnd = StreamChannel(descriptor: input, streams: 1)
        self.writeEnd = writeEnd
        self.errorEnd = standardError.map { StreamChannel(descriptor: $0, streams: 1) }
        for end in [writeEnd, errorEnd].compactMap({ $0 }) {
            end.owner = self
            end.keptByOwner = true
        }
    }

    /// A connection to a TCP `host` and `port`, connecting (bounded by `connectTimeout`) once
    /// started, that sends `greeting` before the exchange's packets.
    package static func connection(
        toHost host: String, port: Int, connectTimeout: Duration?, resolver: any HostResolver, greeting: [PktLine],
        loop: EpollRunLoop
    ) -> StreamChannel {
        let channel = StreamChannel(
            connector: TCPConnector(host: host, port: port, timeout: connectTimeout, resolver: resolver),
            greeting: greeting, isConnection: true)
        channel.loop = loop
        return channel
    }

    /// A connection to a child process started from `arguments` (a nil in `environment` removes
    /// that variable): its standard output is read, its standard input written, its standard
    /// error read into `errorOutput` and ``standardErrorLines``.
    package static func connection(
        spawning arguments: [String], environment: [String: String?], errorOutput: ProgramErrorOutput,
        loop: EpollRunLoop
    ) throws -> StreamChannel {
        let (process, pipes) = try ChildProcess.spawn(arguments, environment: environment, captureStandardError: true)
        let channel = StreamChannel(
            process: process, output: pipes.standardOutput, input: pipes.standardInput,
            standardError: pipes.standardError, errorOutput: errorOutput)
        channel.loop = loop
        return channel
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
        if isConnection {
            connectionDidOpen(in: loop)
        } else {
            scheduledInput?.channelDidOpen()
            scheduledOutput?.channelDidOpen()
        }
    }

    package func loopCannotWatch(_ error: any Error) { fail(error) }

    /// Marks the channel failed: its streams get `errorOccurred`, its connection's handler
    /// `didFail`.
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
        if let owner {
            owner.endFailed(self, error)
        } else if isConnection {
            connectionFail(error)
        } else {
            scheduledInput?.fail(error)
            scheduledOutput?.fail(error)
        }
        if let loop { loop.updateInterest(self) }
    }

    // MARK: Reading and writing

    /// Reads what is there, up to `maxCount` bytes (at least one); an empty result is the end.
    package func readOnce(maxCount: Int) throws -> IOResult<[UInt8]> {
        guard let descriptor, !isConnecting else { throw StreamError.notOpen }
        let result = try descriptor.read(maxCount: max(1, maxCount))
        if isTCPClient, case .done(let bytes) = result, !bytes.isEmpty { Socket.requestQuickAck(descriptor) }
        return result
    }

    /// Queues `bytes` to be written in order.
    package func enqueue(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        queue.append(bytes)
        queuedBytes += bytes.count
    }

    /// What ``flushQueue()`` got to.
    package enum FlushOutcome {
        /// Every queued byte is written.
        case drained
        /// The descriptor is full; the rest waits for writability.
        case blocked
        /// Writing failed; the queue is discarded.
        case failed(any Error)
    }

    /// Writes queued bytes until the descriptor is full or the queue is empty.
    package func flushQueue() -> FlushOutcome {
        guard let descriptor, !isConnecting else { return .blocked }
        while let head = queue.first {
            let result: IOResult<Int>
            do {
                result = try descriptor.write(head[queueHeadOffset...], isSocket: isSocket)
            } catch {
                discardQueued()
                return .failed(error)
            }
            guard case .done(let written) = result else { return .blocked }
            queuedBytes -= written
            queueHeadOffset += written
            if queueHeadOffset == head.count {
                queue.removeFirst()
                queueHeadOffset = 0
            }
        }
        return .drained
    }

    /// Drops every queued byte.
    package func discardQueued() {
        queue.removeAll()
        queuedBytes = 0
        queueHeadOffset = 0
    }

    // MARK: Run loop

    package var watchedDescriptor: FileDescriptor? { descriptor }

    /// Whether the connection (or the connection this channel reports to) drives the channel,
    /// rather than streams.
    private var isDriven: Bool { isConnection || owner != nil || keptByOwner }
    /// Set on a child's standard input or error channel for its whole life.
    private var keptByOwner = false

    package var desiredInterest: EpollEvents {
        if isConnecting { return descriptor == nil ? [] : .writable }
        var interest: EpollEvents = []
        if isDriven {
            if isReading { interest.insert(.readable) }
            if queuedBytes > 0 && (isConnectionOpen || !isConnection) { interest.insert(.writable) }
            return interest
        }
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
        if isDriven {
            if queuedBytes > 0, events.contains(.writable) || trouble { flushDriven(in: loop, announce: true) }
            if isReading, events.contains(.readable) || trouble { readDriven(in: loop) }
        } else {
            if let output = scheduledOutput, output.wantsReadiness, events.contains(.writable) || trouble {
                output.flushQueued(in: loop)
            }
            if let input = scheduledInput, input.wantsReadiness, events.contains(.readable) || trouble {
                loop.deliver(.hasBytesAvailable, to: input)
            }
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

    /// One of the channel's streams (or directions) closed. A socket's write side is shut down so
    /// the peer sees the end; the descriptor closes when no stream is left.
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
            isReading = false
            discardQueued()
        } else if !reading, isSocket, !isAborting, let descriptor, connector == nil {
            Socket.shutdown(descriptor, reading: false, writing: true)
        }
    }
}
