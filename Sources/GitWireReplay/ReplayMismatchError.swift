import GitWire

/// The client did not do what the recording says it did.
public enum ReplayMismatchError: GitWireError, Hashable, Sendable {
    /// What kind of failure this is: `GitWireErrorKind.protocol`.
    public var kind: GitWireErrorKind { .protocol }

    /// The client sent other bytes than recorded.
    case differs(expected: [UInt8], sent: [UInt8])
    /// The client sent bytes where the recording has none from it.
    case unexpectedSend(sent: [UInt8], recordedNext: String)
    /// The client waited for data where the recording has it send this first.
    case clientShouldSend([UInt8])
    /// The client asked for another service, path or protocol version than recorded.
    case request(String)
    /// The client closed the connection before sending everything recorded.
    case incomplete(missing: [UInt8])
    /// The recording holds one connection and the client opened another.
    case extraConnection

    /// The text shown to users and in logs.
    public var description: String {
        switch self {
        case .differs(let expected, let sent):
            return "replay mismatch: " + Self.firstDifference(expected: expected, sent: sent)
        case .unexpectedSend(let sent, let next):
            return "replay mismatch: the client sent \(Self.show(sent)) but the recording expects \(next) next"
        case .clientShouldSend(let expected):
            return
                "replay mismatch: the client waits for data but the recording has it send \(Self.show(expected)) first"
        case .request(let message):
            return "replay mismatch: \(message)"
        case .incomplete(let missing):
            return "replay mismatch: the client stopped before sending \(Self.show(missing))"
        case .extraConnection:
            return "replay mismatch: the client opened a second connection; the recording has one"
        }
    }

    /// The first pkt-line at which `sent` and `expected` part, shown as fixture lines.
    static func firstDifference(expected: [UInt8], sent: [UInt8]) -> String {
        let expectedTokens = FixtureToken.tokens(for: expected)
        let sentTokens = FixtureToken.tokens(for: sent)
        for (index, (wanted, got)) in zip(expectedTokens, sentTokens).enumerated() where wanted != got {
            return
                "client packet \(index + 1) of this turn differs\n  recorded: \(wanted.line)\n  sent:     \(got.line)"
        }
        let index = min(expectedTokens.count, sentTokens.count)
        if sentTokens.count > expectedTokens.count {
            return "the client sent more than recorded at packet \(index + 1): \(sentTokens[index].line)"
        }
        return "the client sent less than recorded; next recorded packet: \(expectedTokens[index].line)"
    }

    private static func show(_ bytes: [UInt8]) -> String {
        FixtureToken.tokens(for: bytes).prefix(3).map(\.line).joined(separator: " ")
    }
}
