import GitWire
import GitWireReplay

/// A recorded fetch or clone, taken apart: the client's packets, the server's packets before the
/// pack, and the side-band streams.
public struct DecodedFetch {
    /// The client's packets.
    public var clientPackets: [PktLine] = []
    /// The server's packets outside the side-band streams.
    public var serverPackets: [PktLine] = []
    /// Band 1: the pack.
    public var pack: [UInt8] = []
    /// Band 2: progress text.
    public var progress: [UInt8] = []

    /// Takes `session` apart; throws if a packet or side-band frame is malformed.
    public init(_ session: Session) throws {
        var client = PktLineDecoder()
        client.append(session.bytes(from: .client))
        while let packet = try client.next() { clientPackets.append(packet) }
        try client.checkAtEnd()

        var server = PktLineDecoder()
        server.append(session.bytes(from: .server))
        var inSideBand = false
        while let packet = try server.next() {
            if let payload = packet.payload, let band = payload.first, (1...3).contains(band) { inSideBand = true }
            guard inSideBand, let payload = packet.payload else {
                serverPackets.append(packet)
                if packet == .flush { inSideBand = false }
                continue
            }
            switch try SideBandFrame(payload: payload) {
            case .data(let bytes): pack += bytes
            case .progress(let bytes): progress += bytes
            case .error(let bytes): throw RemoteError(message: bytes)
            }
        }
        try server.checkAtEnd()
    }

    /// The `N` of the server's "Total N (delta D)" progress line, if it sent progress.
    public var totalFromProgress: Int? {
        let text = String(decoding: progress, as: UTF8.self)
        guard let range = text.range(of: "Total ") else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }

    /// The client's text lines that start with `prefix`.
    public func clientLines(startingWith prefix: String) -> [String] {
        clientPackets.compactMap(\.text).filter { $0.hasPrefix(prefix) }
    }
}
