import GitWire

/// One forwarded client connection of a recording proxy.
protocol ProxiedConnection: AnyObject {
    /// The recorded session.
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
