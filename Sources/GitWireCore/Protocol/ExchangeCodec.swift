/// Bytes in and out of an ``Exchange``: splits what arrives into pkt-lines, turns `ERR` packets
/// into ``RemoteError``s, shows every packet to an observer, and encodes what the exchange sends.
/// The one engine uses it for every transport and every calling style. Pure: no I/O.
public struct ExchangeCodec<E: Exchange> {
    /// The exchange being driven.
    public private(set) var exchange: E
    private var decoder = PktLineDecoder()
    private let observer: (any PacketObserver)?
    /// The output, once the exchange has finished.
    public private(set) var output: E.Output?

    /// Drives `exchange`, showing each packet sent and received to `observer` if given.
    public init(_ exchange: E, observer: (any PacketObserver)? = nil) {
        self.exchange = exchange
        self.observer = observer
    }

    /// The bytes to send first: the transport's `greeting` and the exchange's opening packets.
    public mutating func opening(greeting: [PktLine], context: ExchangeContext) throws -> [UInt8] {
        try encode(greeting + exchange.start(context))
    }

    /// Takes bytes from the server. Returns the bytes to send in reply (often none); ``output``
    /// is set once the exchange finished.
    public mutating func receive(_ bytes: [UInt8], emit: (E.Element) -> Void) throws -> [UInt8] {
        guard output == nil else { return [] }
        decoder.append(bytes)
        var reply: [UInt8] = []
        while output == nil, let packet = try decoder.next() {
            observer?.observe(packet, direction: .received)
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
        if let observer { for packet in packets { observer.observe(packet, direction: .sent) } }
        return try PktLineEncoder.encode(packets)
    }
}

/// Which way a packet went.
public enum PacketDirection: Hashable, Sendable {
    /// From this side to the server.
    case sent
    /// From the server to this side.
    case received
}

/// Sees every packet an exchange sends and receives, in order: packet tracing
/// (`GIT_TRACE_PACKET`), statistics, debugging. Called on the thread that runs the exchange.
public protocol PacketObserver: AnyObject {
    /// `packet` went in `direction`.
    func observe(_ packet: PktLine, direction: PacketDirection)
}
