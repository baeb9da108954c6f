/// Runs an exchange over a blocking connection: the sync engine.
enum BlockingRunner {
    static func run<E: Exchange>(
        _ exchange: E, over connection: any BlockingConnection, timeout: Duration?, trace: PacketTrace?,
        emit: (E.Element) -> Void
    ) throws -> E.Output {
        defer { connection.close() }
        var driver = ExchangeDriver(exchange, trace: trace)
        do {
            try connection.send(try driver.opening(greeting: connection.greeting))
            while true {
                let bytes = try connection.receive()
                if bytes.isEmpty { return try driver.receiveEnd(emit: emit) }
                let reply = try driver.receive(bytes, emit: emit)
                if let output = driver.output {
                    try? connection.send(reply)
                    return output
                }
                if !reply.isEmpty { try connection.send(reply) }
            }
        } catch let error as StreamTimeoutError {
            throw StreamTimeoutError(after: error.after, activity: driver.activity)
        } catch let error as SystemCallError where error.errno == .connectionReset || error.errno == .brokenPipe {
            throw ConnectionLostError(activity: driver.activity, reason: error)
        }
    }
}

/// The connection broke (reset or closed under a write) in the middle of an exchange.
public struct ConnectionLostError: Error, Sendable, CustomStringConvertible {
    /// What the exchange was doing.
    public let activity: String
    /// The system error.
    public let reason: SystemCallError

    public var description: String { "connection lost while \(activity): \(reason.errno)" }
}
