/// A connection over a pair of byte streams: a TCP socket, or the pipes of a child process. The
/// one connection kind of git://, local and ssh transports.
///
/// A child's standard error (ssh's, `git-upload-pack`'s) is read on the loop as it comes: each
/// piece goes to the transport's ``ProgramErrorOutput`` (this process's standard error by
/// default, as git's children write there), and its last lines are kept for the error that
/// explains a failure (``standardErrorLines``). When the child's output ends or breaks, the end
/// reaches the handler only once its standard error has ended too (or after a short grace), so
/// the explanation is there when the exchange fails.
final class StreamConnection: Connection, ByteStreamDelegate {
    let greeting: [PktLine]
    private let pair: ByteStreamPair
    private let process: ChildProcess?
    private weak var loop: EpollRunLoop?
    private var handler: (any ConnectionHandler)?
    private var isClosed = false
    /// The child's standard error, while it is being read.
    private var standardError: ByteInputStream?
    private let errorOutput: ProgramErrorOutput
    private var errorLines = StandardErrorLines()
    /// The end or failure of the output, held until the standard error has ended.
    private var heldEnd: (() -> Void)?
    private var graceTimer: RunLoopTimer?
    /// Keeps the connection (and the reading of the child's standard error) alive after
    /// ``close()`` until that standard error ends.
    private var keptAlive: StreamConnection?

    /// How long an end waits for the child's standard error to end too (a grandchild may hold it
    /// open).
    static let standardErrorGrace: Duration = .seconds(2)

    init(
        pair: ByteStreamPair, process: ChildProcess?, standardError: ByteInputStream? = nil,
        errorOutput: ProgramErrorOutput = .standardError, greeting: [PktLine], loop: EpollRunLoop
    ) {
        self.pair = pair
        self.process = process
        self.standardError = standardError
        self.errorOutput = errorOutput
        self.greeting = greeting
        self.loop = loop
    }

    var standardErrorLines: [String] { errorLines.lines }

    func start(handler: any ConnectionHandler) {
        guard let loop, !isClosed else { return }
        self.handler = handler
        pair.input.delegate = self
        pair.output.delegate = self
        pair.schedule(in: loop)
        if let standardError {
            standardError.delegate = self
            standardError.schedule(in: loop)
            try? standardError.open()
        }
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
    /// five seconds if the peer is slow to take them. A child's standard error is read on until
    /// it ends (for as long as the child is given to end).
    func close() {
        guard !isClosed else { return }
        isClosed = true
        handler = nil
        heldEnd = nil
        pair.input.close()
        pair.output.closeAfterWriting()
        guard let loop else {
            pair.close()
            standardError?.close()
            process?.reap()
            return
        }
        if pair.output.status != .closed { loop.addTimer(after: .seconds(5)) { [pair] _ in pair.close() } }
        process?.reap(in: loop)
        if let standardError, standardError.status != .closed {
            keptAlive = self
            graceTimer?.invalidate()
            graceTimer = loop.addTimer(after: .seconds(6)) { [weak self] _ in self?.standardErrorEnded() }
        }
    }

    func stream(_ stream: ByteStream, handle event: ByteStreamEvent) {
        if stream === standardError {
            standardErrorEvent(event)
            return
        }
        switch event {
        case .hasBytesAvailable:
            do {
                let bytes = try pair.input.read()
                if !bytes.isEmpty { handler?.connection(self, didReceive: bytes) }
            } catch {
                fail(error)
            }
        case .endEncountered:
            afterStandardError { [weak self] in
                guard let self else { return }
                self.handler?.connectionDidEnd(self)
            }
        case .errorOccurred:
            fail(stream.error ?? StreamError.closed)
        case .openCompleted:
            if stream === pair.input { handler?.connectionDidOpen(self) }
        case .hasSpaceAvailable:
            handler?.connectionDidDrain(self)
        }
    }

    private func standardErrorEvent(_ event: ByteStreamEvent) {
        guard let standardError else { return }
        switch event {
        case .hasBytesAvailable:
            let bytes = (try? standardError.read()) ?? []
            if bytes.isEmpty {
                if standardError.status != .open { standardErrorEnded() }
                return
            }
            errorLines.append(bytes)
            errorOutput.forward?(bytes)
        case .endEncountered, .errorOccurred:
            standardErrorEnded()
        case .openCompleted, .hasSpaceAvailable:
            break
        }
    }

    private func standardErrorEnded() {
        standardError?.close()
        standardError = nil
        errorLines.finish()
        graceTimer?.invalidate()
        graceTimer = nil
        let held = heldEnd
        heldEnd = nil
        held?()
        keptAlive = nil
    }

    /// Runs `deliver` once the child's standard error has ended (at once without one), or after
    /// ``standardErrorGrace``.
    private func afterStandardError(_ deliver: @escaping () -> Void) {
        guard standardError != nil, let loop else {
            deliver()
            return
        }
        guard heldEnd == nil else { return }
        heldEnd = deliver
        graceTimer = loop.addTimer(after: Self.standardErrorGrace) { [weak self] _ in
            guard let self else { return }
            self.graceTimer = nil
            let held = self.heldEnd
            self.heldEnd = nil
            held?()
        }
    }

    private func fail(_ error: any Error) {
        afterStandardError { [weak self] in
            guard let self else { return }
            self.handler?.connection(self, didFail: error)
        }
    }
}

/// The last lines a program wrote on its standard error, bounded: at most
/// ``maximumLines`` lines of at most ``maximumLineLength`` bytes each (longer ones cut), split at
/// `\n` and `\r`, empty lines left out.
struct StandardErrorLines {
    static let maximumLines = 20
    static let maximumLineLength = 1024

    private var complete: [String] = []
    private var partial: [UInt8] = []

    /// The lines so far, a last one without its line break included.
    var lines: [String] {
        guard !partial.isEmpty else { return complete }
        return Array((complete + [String(decoding: partial, as: UTF8.self)]).suffix(Self.maximumLines))
    }
    private var partialCut = false

    mutating func append(_ bytes: [UInt8]) {
        for byte in bytes {
            if byte == 0x0a || byte == 0x0d {
                endLine()
            } else if partial.count < Self.maximumLineLength {
                partial.append(byte)
            } else {
                partialCut = true
            }
        }
    }

    /// The output ended: a last line without a line break counts too.
    mutating func finish() { endLine() }

    private mutating func endLine() {
        defer {
            partial = []
            partialCut = false
        }
        guard !partial.isEmpty else { return }
        complete.append(String(decoding: partial, as: UTF8.self) + (partialCut ? "..." : ""))
        if complete.count > Self.maximumLines { complete.removeFirst(complete.count - Self.maximumLines) }
    }
}
