/// Runs an ``Exchange`` over a ``Connection`` on a run loop: the one engine behind the blocking,
/// run-loop and `async` forms of every operation, over every transport.
///
/// The connection bounds its own connect (host lookup included); from the moment it is open, the
/// engine bounds every wait for data with one deadline that each arrival moves forward (one timer,
/// re-armed only when it fires early), maps a broken connection to ``ConnectionLostError`` with
/// what the exchange was doing, and calls `completion` exactly once. A deadline, if given, bounds
/// the whole exchange from the start of the connect, however steadily data arrives.
final class ExchangeEngine<E: Exchange>: ConnectionHandler {
    private var codec: ExchangeCodec<E>
    private let connection: any Connection
    private let context: ExchangeContext
    private let loop: EpollRunLoop
    private let timeout: Duration?
    private let deadline: Duration?
    private var timer: RunLoopTimer?
    private var deadlineTimer: RunLoopTimer?
    private var isOpen = false
    private var readDeadline = ContinuousClock.now
    private var onElement: ((E.Element) -> Void)?
    private var completion: ((Result<E.Output, any Error>) -> Void)?

    init(
        exchange: E, connection: any Connection, context: ExchangeContext, loop: EpollRunLoop, timeout: Duration?,
        deadline: Duration? = nil, observer: (any PacketObserver)?, onElement: @escaping (E.Element) -> Void,
        completion: @escaping (Result<E.Output, any Error>) -> Void
    ) {
        self.codec = ExchangeCodec(exchange, observer: observer)
        self.connection = connection
        self.context = context
        self.loop = loop
        self.timeout = timeout
        self.deadline = deadline
        self.onElement = onElement
        self.completion = completion
    }

    /// Whether the completion has been called.
    var isFinished: Bool { completion == nil }

    /// Connects and queues the opening packets; they leave once the connection opens.
    func start() {
        if let deadline {
            deadlineTimer = loop.addTimer(after: deadline) { [weak self] _ in
                guard let self, !self.isFinished else { return }
                self.finish(
                    .failure(
                        ExchangeDeadlineError(
                            after: deadline, activity: self.isOpen ? self.codec.activity : "connecting")))
            }
        }
        connection.start(handler: self)
        guard !isFinished else { return }
        do {
            connection.send(try codec.opening(greeting: connection.greeting, context: context))
        } catch {
            finish(.failure(error))
        }
    }

    /// Stops at once; the completion gets `error`.
    func cancel(with error: any Error) { finish(.failure(error)) }

    private func armTimer(after delay: Duration) {
        timer = loop.addTimer(after: delay) { [weak self] _ in self?.timerFired() }
    }

    private func timerFired() {
        guard !isFinished, let timeout else { return }
        let now = ContinuousClock.now
        if now < readDeadline {
            armTimer(after: readDeadline - now)
        } else {
            finish(.failure(StreamTimeoutError(after: timeout, activity: codec.activity)))
        }
    }

    // The callbacks may come from a connection this one wraps (recording, counting): replies go
    // through `self.connection`, the outermost, never through the one that called.

    func connectionDidOpen(_ connection: any Connection) {
        isOpen = true
        guard !isFinished, timer == nil, let timeout else { return }
        readDeadline = ContinuousClock.now + timeout
        armTimer(after: timeout)
    }

    func connection(_ connection: any Connection, didReceive bytes: [UInt8]) {
        guard !isFinished else { return }
        if let timeout { readDeadline = ContinuousClock.now + timeout }
        do {
            let reply = try codec.receive(bytes) { onElement?($0) }
            if !reply.isEmpty { self.connection.send(reply) }
            if let output = codec.output { finish(.success(output)) }
        } catch {
            finish(.failure(error))
        }
    }

    /// Writing is progress too: a large body being taken steadily (a push's pack) is no silence.
    func connectionDidDrain(_ connection: any Connection) {
        if let timeout, isOpen { readDeadline = ContinuousClock.now + timeout }
    }

    func connectionDidEnd(_ connection: any Connection) {
        guard !isFinished else { return }
        finish(Result { try codec.receiveEnd { onElement?($0) } })
    }

    func connection(_ connection: any Connection, didFail error: any Error) {
        if let error = error as? SystemCallError, error.errno == .connectionReset || error.errno == .brokenPipe {
            finish(.failure(ConnectionLostError(activity: codec.activity, reason: error)))
        } else {
            finish(.failure(error))
        }
    }

    /// `error` with what the program behind the connection wrote on its standard error, if it
    /// wrote anything: why ssh or `git-upload-pack` ended the connection. The caller's own
    /// cancellation and the timeouts stay as they are.
    private func explained(_ error: any Error) -> any Error {
        switch error {
        case is CancelledError, is ExchangeDeadlineError, is StreamTimeoutError, is RemoteProgramError: return error
        default:
            let lines = connection.standardErrorLines
            return lines.isEmpty ? error : RemoteProgramError(standardError: lines, underlying: error)
        }
    }

    private func finish(_ result: Result<E.Output, any Error>) {
        guard let completion else { return }
        var result = result
        if case .failure(let error) = result { result = .failure(explained(error)) }
        self.completion = nil
        onElement = nil
        timer?.invalidate()
        timer = nil
        deadlineTimer?.invalidate()
        deadlineTimer = nil
        connection.close()
        completion(result)
    }
}
