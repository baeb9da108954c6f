/// What one packet of a side-band stream carried (`man gitprotocol-pack`, "side-band").
public enum SideBandEvent: Hashable, Sendable {
    /// Band 1: the next bytes of the pack.
    case data(ArraySlice<UInt8>)
    /// Band 2: progress text for the user, as sent (with its `\r` and `\n`).
    case progress(ArraySlice<UInt8>)
    /// A packet with no content (`0005\x01`), sent to keep the connection alive while the
    /// server prepares the pack: nothing to do.
    case keepAlive
    /// The flush that ends the stream.
    case end
}

/// Splits a side-band stream (the pack response of upload-pack with `side-band` or
/// `side-band-64k`, or protocol v2's `packfile` section) into pack bytes and progress, one packet
/// at a time. Band 3 becomes a ``RemoteError``. Pure: no I/O, nothing buffered, nothing sized from
/// the wire.
public struct SideBandDemultiplexer: Sendable {
    /// Pack bytes seen so far (band 1).
    public private(set) var dataByteCount = 0
    /// Progress bytes seen so far (band 2).
    public private(set) var progressByteCount = 0
    /// The first pack bytes (band 1), up to the 12 of a pack header.
    public private(set) var packHeader: [UInt8] = []
    /// Whether the closing flush was seen.
    public private(set) var isDone = false

    /// A demultiplexer at the start of a stream.
    public init() {}

    /// Handles one packet. Throws ``RemoteError`` for band 3, ``ProtocolError`` for an unknown band,
    /// an empty packet or a packet after the end.
    public mutating func receive(_ packet: PktLine) throws -> SideBandEvent {
        guard !isDone else { throw ProtocolError("unexpected packet after the end of the side-band stream") }
        switch packet {
        case .flush:
            isDone = true
            return .end
        case .delimiter, .responseEnd:
            throw ProtocolError("unexpected \(packet == .delimiter ? "0001" : "0002") in the side-band stream")
        case .data(let payload):
            switch try SideBandFrame(payload: payload) {
            case .data(let bytes):
                if bytes.isEmpty { return .keepAlive }
                dataByteCount += bytes.count
                if packHeader.count < 12 { packHeader += bytes.prefix(12 - packHeader.count) }
                return .data(bytes)
            case .progress(let bytes):
                if bytes.isEmpty { return .keepAlive }
                progressByteCount += bytes.count
                return .progress(bytes)
            case .error(let bytes):
                throw RemoteError(message: bytes, origin: .sideBand(packHeader: packHeader))
            }
        }
    }
}
