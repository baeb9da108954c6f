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

    /// Checks bytes the client sent against the recording, consuming them.
    mutating func receiveFromClient(_ sent: [UInt8]) throws {
        var rest = sent[...]
        while !rest.isEmpty {
            skipFinished()
            guard eventIndex < events.count, case .bytes(.client, let expected) = events[eventIndex] else {
                throw ReplayMismatchError.unexpectedSend(sent: Array(rest), recordedNext: nextServerDescription)
            }
            let available = expected[offset...]
            let count = min(available.count, rest.count)
            if !available.prefix(count).elementsEqual(rest.prefix(count)) {
                throw ReplayMismatchError.differs(expected: Array(available), sent: Array(rest))
            }
            offset += count
            rest = rest.dropFirst(count)
        }
    }

    /// Moves past a fully delivered or consumed event, and past the client's recorded close.
    private mutating func skipFinished() {
        while eventIndex < events.count {
            switch events[eventIndex] {
            case .bytes(_, let bytes) where offset == bytes.count:
                eventIndex += 1
                offset = 0
            case .end(.client):
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
