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
///
/// Progress and keep-alive packets are bounded by the pack they come with: at most
/// ``chatterAllowance`` bytes of them (counted with their pkt-line headers) more than the pack
/// bytes received so far. Each keeps the connection busy, so a read timeout never fires, and git
/// reads an endless stream of them for ever.
public struct SideBandDemultiplexer: Sendable {
    /// How many bytes of progress and keep-alive packets may come beyond the pack bytes received
    /// so far: 16 MiB. git 2.39's upload-pack sends 8 KiB of progress (161 packets) for a full
    /// clone of git.git (849,000 objects, a 318 MB pack), and while it counts or compresses a
    /// larger repository, a line of about 50 bytes a second (and a 5-byte keep-alive every few
    /// seconds): a real server would need days of progress without pack data to reach it.
    public static let chatterAllowance = 16 << 20

    /// Pack bytes seen so far (band 1).
    public private(set) var dataByteCount = 0
    /// Progress bytes seen so far (band 2).
    public private(set) var progressByteCount = 0
    /// Bytes of progress and keep-alive packets seen so far, headers included.
    public private(set) var chatterByteCount = 0
    /// The first pack bytes (band 1), up to the 12 of a pack header.
    public private(set) var packHeader: [UInt8] = []
    /// Whether the closing flush was seen.
    public private(set) var isDone = false

    /// A demultiplexer at the start of a stream.
    public init() {}

    /// Handles one packet. Throws ``RemoteError`` for band 3, ``ProtocolError`` for an unknown band,
    /// an empty packet or a packet after the end.
    public mutating func receive(_ packet: PktLine) throws -> SideBandEvent {
        try receive(view: PktLineView(packet))
    }

    /// Handles one packet as the decoder hands it out: pack data and progress stay views of its
    /// payload. Throws as ``receive(_:)``.
    public mutating func receive(view packet: PktLineView) throws -> SideBandEvent {
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
                if bytes.isEmpty {
                    try chatter(payload.count)
                    return .keepAlive
                }
                dataByteCount += bytes.count
                if packHeader.count < 12 { packHeader += bytes.prefix(12 - packHeader.count) }
                return .data(bytes)
            case .progress(let bytes):
                try chatter(payload.count)
                if bytes.isEmpty { return .keepAlive }
                progressByteCount += bytes.count
                return .progress(bytes)
            case .error(let bytes):
                throw RemoteError(message: bytes, origin: .sideBand(packHeader: packHeader))
            }
        }
    }

    /// Counts a progress or keep-alive packet of `length` bytes (header excluded); an error once
    /// such packets exceed the pack by more than ``chatterAllowance``.
    private mutating func chatter(_ length: Int) throws {
        chatterByteCount += length + 4
        guard chatterByteCount > Self.chatterAllowance + dataByteCount else { return }
        throw ProtocolError(
            "\(chatterByteCount) bytes of progress and keep-alive packets for \(dataByteCount) bytes of pack"
                + " (at most 16 MiB more are allowed)")
    }
}
