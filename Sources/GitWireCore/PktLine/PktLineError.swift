/// A byte stream is not a valid sequence of pkt-lines.
public enum PktLineError: GitWireError, Hashable, Sendable {
    /// What kind of failure this is: ``GitWireErrorKind/protocol``.
    public var kind: GitWireErrorKind { .protocol }

    /// The four length digits are not all hex; the bytes as received.
    case badLengthCharacters([UInt8])
    /// A length of 3 (reserved) or 4 (an empty data line, which git never sends).
    case badLength(Int)
    /// A length over 65520.
    case tooLong(Int)
    /// A payload given to the encoder is over 65516 bytes.
    case payloadTooLong(Int)
    /// The input ended inside a packet, after `received` of its `expected` bytes.
    case truncated(received: Int, expected: Int)

    /// The text shown to users and in logs.
    public var description: String {
        switch self {
        case .badLengthCharacters(let bytes):
            return "protocol error: bad line length character: \(escapedForDisplay(bytes))"
        case .badLength(3):
            return "protocol error: bad line length 3 (0003 is reserved)"
        case .badLength(4):
            return "protocol error: bad line length 4 (0004, an empty pkt-line, is not allowed)"
        case .badLength(let length):
            return "protocol error: bad line length \(length)"
        case .tooLong(let length):
            return "protocol error: bad line length \(length) (the maximum is \(PktLine.maxLength))"
        case .payloadTooLong(let count):
            return "pkt-line payload of \(count) bytes exceeds \(PktLine.maxPayload)"
        case .truncated(let received, let expected):
            return "protocol error: stream ended inside a pkt-line after \(received) of \(expected) bytes"
        }
    }
}
