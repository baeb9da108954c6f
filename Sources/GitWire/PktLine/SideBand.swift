/// One side-band frame of a pack response (`man gitprotocol-pack`).
public enum SideBandFrame: Hashable, Sendable {
    /// Band 1: pack data.
    case data(ArraySlice<UInt8>)
    /// Band 2: progress text for the user.
    case progress(ArraySlice<UInt8>)
    /// Band 3: a fatal error from the remote.
    case error(ArraySlice<UInt8>)

    /// Splits a data pkt-line's payload into its band and content.
    public init(payload: [UInt8]) throws {
        guard let band = payload.first else { throw ProtocolError("empty side-band packet") }
        let content = payload[1...]
        switch band {
        case 1: self = .data(content)
        case 2: self = .progress(content)
        case 3: self = .error(content)
        default: throw ProtocolError("bad band #\(band)")
        }
    }
}

/// The remote reported an error: an `ERR` line or side-band 3.
public struct RemoteError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The remote's message, without a trailing newline.
    public let message: String

    /// Makes an error from the remote's raw message.
    public init<Bytes: Collection<UInt8>>(message bytes: Bytes) {
        var text = Array(bytes)
        while text.last == 0x0a { text.removeLast() }
        message = String(decoding: text, as: UTF8.self)
    }

    public var description: String { "remote error: \(message)" }

    /// The error an `ERR <message>` packet carries, or nil if `line` is not one.
    public static func fromErrorPacket(_ line: PktLine) -> RemoteError? {
        guard case .data(let payload) = line, payload.count >= 4,
            payload[0] == UInt8(ascii: "E"), payload[1] == UInt8(ascii: "R"), payload[2] == UInt8(ascii: "R"),
            payload[3] == UInt8(ascii: " ")
        else { return nil }
        return RemoteError(message: payload[4...])
    }
}

/// The remote broke the protocol: what was wrong, with the offending line where there is one.
public struct ProtocolError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was wrong.
    public let message: String

    /// Makes an error saying `message`.
    public init(_ message: String) { self.message = message }

    /// An error about `line`, shown escaped.
    public init(_ message: String, line: [UInt8]) {
        self.message = "\(message): '\(escapedForDisplay(line))'"
    }

    public var description: String { "protocol error: \(message)" }
}
