/// The remote reported an error: an `ERR` line or side-band 3.
public struct RemoteError: GitWireError, Hashable, Sendable {
    /// What kind of failure this is: ``GitWireErrorKind/notFound`` when the message says the
    /// repository is not there (git daemon's `access denied or repository not exported`),
    /// ``GitWireErrorKind/authentication`` when it says access was refused, otherwise
    /// ``GitWireErrorKind/remote``.
    public var kind: GitWireErrorKind { FailureText.kind(of: message) ?? .remote }

    /// The remote's message, without a trailing newline, as sent (control characters included:
    /// the ``description`` masks them).
    public let message: String

    /// The message exactly as the server sent it (git shows a side-band message so, after
    /// `remote: `).
    public let rawMessage: [UInt8]

    /// Where the error came from.
    public enum Origin: Hashable, Sendable {
        /// An `ERR <message>` packet.
        case errorPacket
        /// Side-band 3, with the first bytes of pack data that came before it (up to the
        /// pack header's 12: git's words depend on whether it could read the header).
        case sideBand(packHeader: [UInt8])
    }

    /// Where the error came from.
    public let origin: Origin

    /// Makes an error from the remote's raw message.
    public init<Bytes: Collection<UInt8>>(message bytes: Bytes, origin: Origin = .errorPacket) {
        rawMessage = Array(bytes)
        var text = rawMessage
        while text.last == 0x0a { text.removeLast() }
        message = String(decoding: text, as: UTF8.self)
        self.origin = origin
    }

    /// The text shown to users and in logs, with the control characters of the message masked
    /// (see ``maskedForTerminal(_:)``): it comes from the server.
    public var description: String { "remote error: \(maskedForTerminal(message))" }

    /// The error an `ERR <message>` packet carries, or nil if `line` is not one.
    public static func fromErrorPacket(_ line: PktLine) -> RemoteError? {
        guard case .data(let payload) = line else { return nil }
        return fromErrorPayload(payload[...])
    }

    /// The error an `ERR <message>` packet carries, or nil if `line` is not one, for a packet as
    /// the decoder hands it out.
    public static func fromErrorPacket(_ line: PktLineView) -> RemoteError? {
        guard case .data(let payload) = line else { return nil }
        return fromErrorPayload(payload)
    }

    private static func fromErrorPayload(_ payload: ArraySlice<UInt8>) -> RemoteError? {
        guard payload.starts(with: "ERR ".utf8) else { return nil }
        return RemoteError(message: payload.dropFirst(4))
    }
}
