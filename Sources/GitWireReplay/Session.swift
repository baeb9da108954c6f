import GitWire

/// A recorded conversation with a git service: every byte each side sent, in order, and what the
/// connection was. Bytes are kept exactly; how reads happened to be split is not (that depends on
/// timing), so consecutive chunks in one direction are one event.
public struct Session: Hashable, Sendable {
    /// Who sent an event's bytes.
    public enum Direction: String, Hashable, Sendable {
        /// The client (gitwire, git fetch, …).
        case client
        /// The server (git daemon, git-upload-pack, …).
        case server
    }

    /// One step of the session.
    public enum Event: Hashable, Sendable {
        /// Bytes one side sent.
        case bytes(Direction, [UInt8])
        /// One side closed its sending direction.
        case end(Direction)
        /// An HTTP request the client made (`GET /repo.git/info/refs?service=…`, with the git
        /// headers that matter) or the status line of the server's answer: informational, for
        /// people reading the fixture and for tests; replay checks the bytes, not these.
        case http(Direction, String)
    }

    /// The transport: `git` (a git:// connection) or `file` (pipes to git-upload-pack).
    public var transport: String
    /// The service asked for, such as `git-upload-pack`.
    public var service: String
    /// The repository path asked for.
    public var path: String
    /// The protocol version the client asked for.
    public var protocolVersion: ProtocolVersion
    /// The `host=` value the client sent (git:// only).
    public var host: String?
    /// The command that was recorded, for people reading the fixture.
    public var command: String?
    /// What happened, in order.
    public private(set) var events: [Event] = []

    /// An empty session.
    public init(
        transport: String, service: String, path: String, protocolVersion: ProtocolVersion, host: String? = nil,
        command: String? = nil
    ) {
        self.transport = transport
        self.service = service
        self.path = path
        self.protocolVersion = protocolVersion
        self.host = host
        self.command = command
    }

    /// Adds bytes sent by `direction`, joining them to the previous event if it is from the same
    /// side. Amortized time linear in `bytes.count`: the joined bytes grow in place, never copied.
    public mutating func append(_ bytes: [UInt8], from direction: Direction) {
        guard !bytes.isEmpty else { return }
        if case .bytes(let last, var earlier)? = events.last, last == direction {
            // Take the bytes out of the event first, so `earlier` holds the only reference and
            // grows in place instead of being copied whole on every chunk.
            events[events.count - 1] = .end(direction)
            earlier.append(contentsOf: bytes)
            events[events.count - 1] = .bytes(direction, earlier)
        } else {
            events.append(.bytes(direction, bytes))
        }
    }

    /// Appends an HTTP request or response line (see ``Event/http(_:_:)``).
    public mutating func appendHTTP(_ line: String, from direction: Direction) {
        events.append(.http(direction, line))
    }

    /// Records that `direction` closed its side.
    public mutating func appendEnd(from direction: Direction) {
        if !events.contains(.end(direction)) { events.append(.end(direction)) }
    }

    /// All bytes `direction` sent, in order.
    public func bytes(from direction: Direction) -> [UInt8] {
        events.reduce(into: []) { result, event in
            if case .bytes(direction, let bytes) = event { result += bytes }
        }
    }
}
