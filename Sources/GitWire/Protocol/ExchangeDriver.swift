/// Feeds an ``Exchange`` from raw bytes: splits them into pkt-lines, turns `ERR` packets into
/// ``RemoteError``s, traces packets, and encodes what the exchange sends. Shared by the blocking,
/// run-loop and async engines so they cannot drift apart. Pure: no I/O.
public struct ExchangeDriver<E: Exchange> {
    /// The exchange being driven.
    public private(set) var exchange: E
    private var decoder = PktLineDecoder()
    private let trace: PacketTrace?
    /// The output, once the exchange has finished.
    public private(set) var output: E.Output?

    /// Drives `exchange`, tracing packets to `trace` if given.
    public init(_ exchange: E, trace: PacketTrace? = nil) {
        self.exchange = exchange
        self.trace = trace
    }

    /// The bytes to send first: the transport's `greeting` and the exchange's opening packets.
    public mutating func opening(greeting: [PktLine]) throws -> [UInt8] {
        try encode(greeting + exchange.start())
    }

    /// Takes bytes from the server. Returns the bytes to send in reply (often none); ``output``
    /// is set once the exchange finished.
    public mutating func receive(_ bytes: [UInt8], emit: (E.Element) -> Void) throws -> [UInt8] {
        guard output == nil else { return [] }
        decoder.append(bytes)
        var reply: [UInt8] = []
        while output == nil, let packet = try decoder.next() {
            trace?.record(packet, sent: false)
            if let error = RemoteError.fromErrorPacket(packet) { throw error }
            switch try exchange.receive(packet, emit: emit) {
            case .readMore:
                break
            case .send(let packets):
                reply += try encode(packets)
            case .finish(let result, let farewell):
                reply += try encode(farewell)
                output = result
            }
        }
        return reply
    }

    /// The server closed the connection: the exchange's output, or why the end was premature.
    public mutating func receiveEnd(emit: (E.Element) -> Void) throws -> E.Output {
        if let output { return output }
        try decoder.checkAtEnd()
        let result = try exchange.receiveEnd(emit: emit)
        output = result
        return result
    }

    /// What the exchange is doing, for messages.
    public var activity: String { exchange.activity }

    private func encode(_ packets: [PktLine]) throws -> [UInt8] {
        for packet in packets { trace?.record(packet, sent: true) }
        return try PktLineEncoder.encode(packets)
    }
}
