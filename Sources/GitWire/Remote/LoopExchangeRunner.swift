/// Runs an exchange over a run-loop connection: the event-driven engine. It bounds every wait
/// for data with a timer, and calls `completion` exactly once.
final class LoopExchangeRunner<E: Exchange>: LoopConnectionHandler {
    private var driver: ExchangeDriver<E>
    private let connection: any LoopConnection
    private let loop: EpollRunLoop
    private let timeout: Duration?
    private var timer: RunLoopTimer?
    private let onElement: (E.Element) -> Void
    private var completion: ((Result<E.Output, any Error>) -> Void)?

    init(
        exchange: E, connection: any LoopConnection, loop: EpollRunLoop, timeout: Duration?, trace: PacketTrace?,
        onElement: @escaping (E.Element) -> Void, completion: @escaping (Result<E.Output, any Error>) -> Void
    ) {
        self.driver = ExchangeDriver(exchange, trace: trace)
        self.connection = connection
        self.loop = loop
        self.timeout = timeout
        self.onElement = onElement
        self.completion = completion
    }

    /// Connects and sends the opening packets.
    func start() {
        connection.start(handler: self)
        do {
            connection.send(try driver.opening(greeting: connection.greeting))
        } catch {
            finish(.failure(error))
            return
        }
        armTimer()
    }

    /// Stops at once; the completion gets `error`.
    func cancel(with error: any Error) { finish(.failure(error)) }

    private func armTimer() {
        timer?.invalidate()
        guard let timeout else { return }
        timer = loop.addTimer(after: timeout) { [weak self] _ in
            guard let self else { return }
            self.finish(.failure(StreamTimeoutError(after: timeout, activity: self.driver.activity)))
        }
    }

    func connection(_ connection: any LoopConnection, didReceive bytes: [UInt8]) {
        guard completion != nil else { return }
        armTimer()
        do {
            let reply = try driver.receive(bytes, emit: onElement)
            if !reply.isEmpty { connection.send(reply) }
            if let output = driver.output { finish(.success(output)) }
        } catch {
            finish(.failure(error))
        }
    }

    func connectionDidEnd(_ connection: any LoopConnection) {
        guard completion != nil else { return }
        finish(Result { try driver.receiveEnd(emit: onElement) })
    }

    func connection(_ connection: any LoopConnection, didFail error: any Error) {
        if let error = error as? StreamTimeoutError {
            finish(.failure(StreamTimeoutError(after: error.after, activity: error.activity)))
        } else if let error = error as? SystemCallError,
            error.errno == .connectionReset || error.errno == .brokenPipe
        {
            finish(.failure(ConnectionLostError(activity: driver.activity, reason: error)))
        } else {
            finish(.failure(error))
        }
    }

    private func finish(_ result: Result<E.Output, any Error>) {
        guard let completion else { return }
        self.completion = nil
        timer?.invalidate()
        timer = nil
        connection.close()
        completion(result)
    }
}
