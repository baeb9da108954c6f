/// Bytes in and out of an ``Exchange``: splits what arrives into pkt-lines, turns `ERR` packets
/// into ``RemoteError``s, shows every packet to an observer, and encodes what the exchange sends.
/// The one engine uses it for every transport and every calling style. Pure: no I/O.
public struct ExchangeCodec<E: Exchange> {
    // Inlinable, with its state usable from inlined code: the engine in GitWire specializes the
    // codec for its exchange, so a packet costs no generic dispatch across the module boundary.

    /// The exchange being driven.
    public var exchange: E { driven }
    @usableFromInline var driven: E
    @usableFromInline var decoder = PktLineDecoder()
    @usableFromInline let observer: (any PacketObserver)?
    /// The output, once the exchange has finished.
    public var output: E.Output? { finished }
    @usableFromInline var finished: E.Output?

    /// Drives `exchange`, showing each packet sent and received to `observer` if given.
    @inlinable
    public init(_ exchange: E, observer: (any PacketObserver)? = nil) {
        self.driven = exchange
        self.observer = observer
    }

    /// The bytes to send first: the transport's `greeting` and the exchange's opening packets.
    @inlinable
    public mutating func opening(greeting: [PktLine], context: ExchangeContext) throws -> [UInt8] {
        try encode(greeting + driven.start(context))
    }

    /// Takes bytes from the server. Returns the bytes to send in reply (often none); ``output``
    /// is set once the exchange finished. The array is shared with the decoder, not copied.
    @inlinable
    public mutating func receive(_ bytes: [UInt8], emit: (E.Element) -> Void) throws -> [UInt8] {
        try receive(bytes[...], emit: emit)
    }

    /// Takes bytes from the server, as the array form does: packets reach the exchange as
    /// views of `bytes` (a packet split between two inputs is the one thing copied), so a reader
    /// hands over the buffer it read into and does not change it afterwards.
    @inlinable
    public mutating func receive(_ bytes: ArraySlice<UInt8>, emit: (E.Element) -> Void) throws -> [UInt8] {
        guard finished == nil else { return [] }
        if driven.readsRawBytes { return try take(try driven.receive(raw: bytes, emit: emit)) }
        decoder.append(bytes)
        var reply: [UInt8] = []
        while finished == nil, let packet = try decoder.nextView() {
            // Only a tracer sees a copy.
            observer?.observe(packet.line, direction: .received)
            if let error = RemoteError.fromErrorPacket(packet) { throw error }
            reply += try take(try driven.receive(view: packet, emit: emit))
            if finished == nil && driven.readsRawBytes {
                // The rest is not pkt-lines: what came with the last packet goes as it is.
                let rest = decoder.takeRawView()
                if !rest.isEmpty { reply += try take(try driven.receive(raw: rest, emit: emit)) }
                break
            }
        }
        return reply
    }

    /// What to send for `step`; ``output`` set when it finishes.
    @inlinable
    mutating func take(_ step: ExchangeStep<E.Output>) throws -> [UInt8] {
        switch step {
        case .readMore:
            return []
        case .send(let packets):
            return try encode(packets)
        case .finish(let result, let farewell):
            let bytes = try encode(farewell)
            finished = result
            return bytes
        }
    }

    /// The server closed the connection: the exchange's output, or why the end was premature.
    @inlinable
    public mutating func receiveEnd(emit: (E.Element) -> Void) throws -> E.Output {
        if let finished { return finished }
        try decoder.checkAtEnd()
        let result = try driven.receiveEnd(emit: emit)
        finished = result
        return result
    }

    /// Bytes received that the decoder copied (a packet split between two inputs), for tests and
    /// benchmarks of the "at most one copy" promise.
    package var copiedByteCount: Int { decoder.copiedByteCount }

    /// What the exchange is doing, for messages.
    public var activity: String { driven.activity }

    @inlinable
    func encode(_ packets: [PktLine]) throws -> [UInt8] {
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
