/// One side-band frame of a pack response (`man gitprotocol-pack`).
public enum SideBandFrame: Hashable, Sendable {
    /// Band 1: pack data.
    case data(ArraySlice<UInt8>)
    /// Band 2: progress text for the user.
    case progress(ArraySlice<UInt8>)
    /// Band 3: a fatal error from the remote.
    case error(ArraySlice<UInt8>)

    /// Splits a data pkt-line's payload into its band and content.
    public init(payload: [UInt8]) throws { try self.init(payload: payload[...]) }

    /// Splits a data pkt-line's payload into its band and content, a view of the payload.
    public init(payload: ArraySlice<UInt8>) throws {
        guard let band = payload.first else { throw ProtocolError("empty side-band packet") }
        let content = payload.dropFirst()
        switch band {
        case 1: self = .data(content)
        case 2: self = .progress(content)
        case 3: self = .error(content)
        default: throw ProtocolError("bad band #\(band)")
        }
    }
}
