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

    /// Listens on `host`:`port`; `makeConnection` forwards each client, calling the given closure
    /// once when the connection has ended.
    init(
        host: String, port: Int, outputDirectory: String, loop: EpollRunLoop,
        makeConnection: @escaping (ByteStreamPair, @escaping (any ProxiedConnection) -> Void) -> any ProxiedConnection
    ) throws {
        listener = try ListeningSocket(host: host, port: port)
        self.outputDirectory = outputDirectory
        try FileSystem.makeDirectory(outputDirectory)
        listener.schedule(in: loop) { [weak self] client in
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

/// The bytes a recording proxy's connection has recorded, within its limit.
struct RecordingBudget {
    /// The most bytes the session may hold.
    let limit: Int
    /// Bytes recorded so far.
    private(set) var used = 0

    /// The bytes left.
    var remaining: Int { limit - used }

    /// Counts `count` more bytes; false (counting nothing) when they would pass the limit.
    mutating func take(_ count: Int) -> Bool {
        guard count <= remaining else { return false }
        used += count
        return true
    }
}
