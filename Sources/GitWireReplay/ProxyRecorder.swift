import GitWire

/// One forwarded client connection of a recording proxy.
protocol ProxiedConnection: AnyObject {
    /// The recorded session, or why there is none (``RecordingLimitError`` among others).
    func session() throws -> Session
    /// Closes both sides; the connection reports its end.
    func closeAll()
}

/// What both recording proxies share: the listening socket, the open connections, a fixture name
/// for each (`connection-001.session`, …) and writing the session when a connection ends.
final class ProxyRecorder {
    let listener: ListeningSocket
    private let outputDirectory: String
    private var connections: [ObjectIdentifier: any ProxiedConnection] = [:]
    private var sequence = 0
    private(set) var writtenFixtures: [String] = []
    var onFinishedConnection: ((Result<String, any Error>) -> Void)?

    /// Listens on `host`:`port`; `makeConnection` forwards each client (its connection, not yet
    /// started), calling the given closure once when the connection has ended.
    init(
        host: String, port: Int, outputDirectory: String, loop: EpollRunLoop,
        makeConnection: @escaping (StreamChannel, @escaping (any ProxiedConnection) -> Void) -> any ProxiedConnection
    ) throws {
        listener = try ListeningSocket(host: host, port: port)
        self.outputDirectory = outputDirectory
        try FileSystem.makeDirectory(outputDirectory)
        listener.acceptConnections(in: loop) { [weak self] client in
            guard let self else { return }
            sequence += 1
            let name = "connection-\(String(sequence).leftPadded(to: 3)).session"
            let connection = makeConnection(client) { [weak self] connection in
                self?.finish(connection, fixtureName: name)
            }
            connections[ObjectIdentifier(connection)] = connection
        }
    }

    var openConnectionCount: Int { connections.count }

    func close() {
        listener.close()
        for connection in connections.values { connection.closeAll() }
        connections.removeAll()
    }

    private func finish(_ connection: any ProxiedConnection, fixtureName: String) {
        connections[ObjectIdentifier(connection)] = nil
        let path = "\(outputDirectory)/\(fixtureName)"
        do {
            try connection.session().write(toFile: path)
            writtenFixtures.append(path)
            onFinishedConnection?(.success(path))
        } catch {
            onFinishedConnection?(.failure(error))
        }
    }
}

/// A recording proxy's session grew past its limit (``HTTPRecordingProxy/defaultRecordingLimit``
/// unless the proxy was given another): the proxy closed both sides of the connection and wrote
/// no fixture for it.
public struct RecordingLimitError: GitWireError, Hashable, Sendable {
    /// The most bytes a session may record (both directions, compressed bodies as decoded).
    public let limit: Int

    /// Makes the error.
    public init(limit: Int) { self.limit = limit }

    /// What kind of failure this is: `GitWireErrorKind.protocol`, a peer sent more than the
    /// recording may hold.
    public var kind: GitWireErrorKind { .protocol }

    /// The text shown to users and in logs.
    public var description: String {
        let size = limit % (1 << 20) == 0 ? "\(limit >> 20) MiB" : "\(limit) bytes"
        return "the session grew past the recording limit of \(size); the connection was closed and nothing written"
    }
}

/// A session being recorded, within a byte limit: the one way a ``Session`` is assembled, by
/// ``SessionRecorder`` (for ``RecordingTransport``) and by both recording proxies' connections.
/// Bytes are counted against the limit as they are recorded; the first bytes that would pass it
/// are not recorded and fail the session with ``RecordingLimitError``.
struct SessionAssembly {
    /// What has been recorded; its header (service, path, version, host) is the recorder's to set.
    var session: Session
    /// The most bytes the session may hold (both directions).
    let limit: Int
    /// Bytes recorded so far.
    private(set) var used = 0
    /// Why the session is incomplete, once it is.
    private(set) var failure: RecordingLimitError?

    /// An empty recording of `session`'s connection, of at most `limit` bytes.
    init(_ session: Session, limit: Int = .max) {
        self.session = session
        self.limit = limit
    }

    /// The bytes left.
    var remaining: Int { limit - used }

    /// Records bytes `direction` sent; false (recording nothing, and failing the session) when
    /// they would pass the limit.
    mutating func record(_ bytes: [UInt8], from direction: Session.Direction) -> Bool {
        guard failure == nil, bytes.count <= remaining else {
            failLimit()
            return false
        }
        used += bytes.count
        session.append(bytes, from: direction)
        return true
    }

    /// Records an HTTP request or status line `direction` sent.
    mutating func recordHTTP(_ line: String, from direction: Session.Direction) {
        session.appendHTTP(line, from: direction)
    }

    /// Records that `direction` closed its side.
    mutating func recordEnd(from direction: Session.Direction) {
        session.appendEnd(from: direction)
    }

    /// Fails the session for bytes that would pass the limit but were never offered whole (a
    /// gzip body that expands beyond what is left).
    mutating func failLimit() {
        failure = RecordingLimitError(limit: limit)
    }

    /// The recorded session, or the error that left it incomplete.
    func result() throws -> Session {
        if let failure { throw failure }
        return session
    }
}
