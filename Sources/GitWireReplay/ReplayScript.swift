import GitWire

/// Walks through a recorded session on behalf of a replaying server: hands out the server's
/// bytes in chunks and checks the client's bytes against the recording. Pure: no I/O.
struct ReplayScript {
    /// What the server does next.
    enum ServerStep: Equatable {
        /// Deliver these bytes.
        case bytes([UInt8])
        /// The server closed the connection (or the recording is over).
        case end
        /// The recording expects the client to send these bytes first.
        case waitingForClient([UInt8])
    }

    private let events: [Session.Event]
    private var eventIndex = 0
    private var offset = 0
    private var chunks: ReplayChunking.Iterator

    init(session: Session, chunking: ReplayChunking) {
        events = session.events
        chunks = chunking.makeIterator()
    }

    /// The bytes the client was recorded sending that it has not sent yet.
    var remainingClientBytes: [UInt8] {
        var remaining: [UInt8] = []
        for index in eventIndex..<events.count {
            if case .bytes(.client, let bytes) = events[index] {
                remaining += bytes[(index == eventIndex ? offset : 0)...]
            }
        }
        return remaining
    }

    /// The server's next move.
    mutating func nextServerStep() -> ServerStep {
        skipFinished()
        guard eventIndex < events.count else { return .end }
        switch events[eventIndex] {
        case .bytes(.server, let bytes):
            let size = min(chunks.next(), bytes.count - offset)
            let chunk = Array(bytes[offset..<(offset + size)])
            offset += size
            return .bytes(chunk)
        case .bytes(.client, let bytes):
            return .waitingForClient(Array(bytes[offset...]))
        case .end(.server):
            return .end
        case .end(.client), .http:
            eventIndex += 1
            return nextServerStep()
        }
    }

    /// Client bytes received but not yet compared: the start of a pkt-line whose end has not
    /// come yet.
    private var unmatched: [UInt8] = []

    /// Checks bytes the client sent against the recording, consuming them: pkt-line by pkt-line,
    /// each equal to the recorded one but for the value of an `agent=` capability (gitwire's
    /// version, which changes with every release; see ``AgentNeutralPacket``). Bytes that are not
    /// pkt-lines are compared as they are.
    mutating func receiveFromClient(_ sent: [UInt8]) throws {
        unmatched += sent
        while !unmatched.isEmpty {
            skipFinished()
            guard eventIndex < events.count, case .bytes(.client, let expected) = events[eventIndex] else {
                throw ReplayMismatchError.unexpectedSend(sent: unmatched, recordedNext: nextServerDescription)
            }
            let available = expected[offset...]
            guard let recordedLength = AgentNeutralPacket.length(of: available),
                let sentLength = AgentNeutralPacket.length(of: unmatched[...])
            else {
                // Not pkt-lines (or one not whole yet): byte for byte, as far as both go.
                if AgentNeutralPacket.length(of: available) != nil && unmatched.count < 4 { return }
                let count = min(available.count, unmatched.count)
                if !available.prefix(count).elementsEqual(unmatched.prefix(count)) {
                    throw difference(in: expected)
                }
                offset += count
                unmatched.removeFirst(count)
                continue
            }
            guard unmatched.count >= sentLength else {
                // Wait for the rest of this pkt-line, unless what came already differs.
                if !AgentNeutralPacket.mayMatch(
                    recorded: available.prefix(recordedLength), partial: unmatched[...])
                {
                    throw difference(in: expected)
                }
                return
            }
            guard
                AgentNeutralPacket.matches(
                    recorded: available.prefix(recordedLength), sent: unmatched.prefix(sentLength))
            else {
                throw difference(in: expected)
            }
            offset += recordedLength
            unmatched.removeFirst(sentLength)
        }
    }

    /// The mismatch in the client's turn `expected`: the turn as recorded against what the client
    /// sent in it (the pkt-lines already matched shown as recorded, so that the first differing
    /// one is the first that really differs, numbered from the start of the turn).
    private func difference(in expected: [UInt8]) -> ReplayMismatchError {
        .differs(expected: expected, sent: Array(expected[..<offset]) + unmatched)
    }

    /// Moves past a fully delivered or consumed event, past the client's recorded close, and
    /// past HTTP request and status lines (a streamed request's body is recorded after its line).
    private mutating func skipFinished() {
        while eventIndex < events.count {
            switch events[eventIndex] {
            case .bytes(_, let bytes) where offset == bytes.count:
                eventIndex += 1
                offset = 0
            case .end(.client), .http:
                eventIndex += 1
            default:
                return
            }
        }
    }

    private var nextServerDescription: String {
        guard eventIndex < events.count else { return "the end of the session" }
        switch events[eventIndex] {
        case .bytes(.server, _): return "the server to send"
        case .end(.server): return "the server to close the connection"
        default: return "the end of the session"
        }
    }
}

/// How recorded and sent pkt-lines are compared: byte for byte, except the value of an `agent=`
/// capability (`agent=gitwire/0.1.0` in a v0 want line, the `agent=` line of a v2 request), which
/// names the client's version and may differ (the pkt-line's length with it). Pure.
enum AgentNeutralPacket {
    /// The length of the pkt-line that starts `bytes` (4 for flush, delimiter and response-end),
    /// or nil when `bytes` does not start with a pkt-line length.
    static func length(of bytes: ArraySlice<UInt8>) -> Int? {
        guard bytes.count >= 4 else { return nil }
        var value = 0
        for byte in bytes.prefix(4) {
            let digit: Int
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = Int(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = Int(byte - UInt8(ascii: "a")) + 10
            default: return nil
            }
            value = value * 16 + digit
        }
        if value < 4 { return 4 }
        return value
    }

    /// Whether `sent` is `recorded` but for `agent=` values.
    static func matches(recorded: ArraySlice<UInt8>, sent: ArraySlice<UInt8>) -> Bool {
        if recorded.elementsEqual(sent) { return true }
        guard recorded.count > 4, sent.count > 4 else { return false }
        return neutral(recorded.dropFirst(4)) == neutral(sent.dropFirst(4))
    }

    /// Whether the start of a pkt-line, `partial`, can still turn out to match `recorded`.
    static func mayMatch(recorded: ArraySlice<UInt8>, partial: ArraySlice<UInt8>) -> Bool {
        // An `agent=` value cut short neutralizes as a whole one does: compare up to where the
        // partial line ends.
        let neutralPayload = neutral(partial.dropFirst(4))
        return neutral(recorded.dropFirst(4)).starts(with: neutralPayload)
    }

    /// `payload` with each `agent=<value>` (at the start, or after a space or NUL) reduced to
    /// `agent=`.
    static func neutral(_ payload: ArraySlice<UInt8>) -> [UInt8] {
        let key = Array("agent=".utf8)
        var result: [UInt8] = []
        result.reserveCapacity(payload.count)
        var index = payload.startIndex
        while index < payload.endIndex {
            let atBoundary = index == payload.startIndex || payload[index - 1] == 0x20 || payload[index - 1] == 0
            if atBoundary, payload[index...].starts(with: key) {
                result += key
                index += key.count
                while index < payload.endIndex, ![0x20, 0, 0x0a].contains(payload[index]) { index += 1 }
            } else {
                result.append(payload[index])
                index += 1
            }
        }
        return result
    }
}

/// How a replaying server splits what it sends: the whole of each turn at once, or chunks of
/// given sizes (repeating), to show that decoders do not depend on how reads are split.
public struct ReplayChunking: Sendable, Hashable, CustomStringConvertible {
    /// Chunk sizes, used in turn; empty means whole turns.
    public let sizes: [Int]

    /// Each turn of the server in one piece.
    public static let whole = ReplayChunking(sizes: [])
    /// One byte at a time.
    public static let oneByte = ReplayChunking(sizes: [1])

    /// Chunks of these sizes, repeating (sizes below 1 count as 1).
    public static func sizes(_ sizes: [Int]) -> ReplayChunking { ReplayChunking(sizes: sizes.map { max(1, $0) }) }

    /// The text shown to users and in logs.
    public var description: String { sizes.isEmpty ? "whole" : sizes.map(String.init).joined(separator: ",") }

    struct Iterator {
        let sizes: [Int]
        var index = 0

        mutating func next() -> Int {
            guard !sizes.isEmpty else { return .max }
            defer { index = (index + 1) % sizes.count }
            return sizes[index]
        }
    }

    func makeIterator() -> Iterator { Iterator(sizes: sizes) }
}
