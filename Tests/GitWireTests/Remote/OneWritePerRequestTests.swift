import GitWire
import GitWireTestSupport
import Testing

/// Counts the writes of a real connection, passing everything through.
final class CountingConnection: Connection {
    let base: any Connection
    var sends: [[UInt8]] = []

    init(_ base: any Connection) { self.base = base }

    var greeting: [PktLine] { base.greeting }
    func start(handler: any ConnectionHandler) { base.start(handler: handler) }
    func send(_ bytes: [UInt8]) {
        sends.append(bytes)
        base.send(bytes)
    }
    func close() { base.close() }
}

/// A git:// transport whose connections count their writes.
struct CountingTransport: Transport {
    let base: GitDaemonTransport
    let connections = Connections()

    final class Connections: @unchecked Sendable {
        var all: [CountingConnection] = []
    }

    var scheme: RemoteURL.Scheme { base.scheme }

    func connect(_ request: ServiceRequest, timeout: Duration?, in loop: EpollRunLoop) throws -> any Connection {
        let connection = CountingConnection(try base.connect(request, timeout: timeout, in: loop))
        connections.all.append(connection)
        return connection
    }
}

/// Small writes meet Nagle's algorithm and delayed ACKs (git's v2 ls-remote over git:// stalls
/// about 40 ms a round trip that way): every request must leave in one write.
@Suite("One write per request")
struct OneWritePerRequestTests {
    @Test(arguments: ProtocolVersion.allCases)
    func eachTurnOfTheClientIsOneSend(version: ProtocolVersion) throws {
        let daemon = TestRepositories.shared.daemon
        let transport = CountingTransport(base: GitDaemonTransport(host: "127.0.0.1", port: daemon.port))
        let remote = Remote(url: try RemoteURL(daemon.url("small.git")), transport: transport)
        _ = try remote.lsRemoteBlocking(LsRemoteOptions(protocolVersion: version))
        let sends = try #require(transport.connections.all.first).sends
        // v0/v1: the request line, then the closing flush. v2: the request line, the whole
        // ls-refs command, then the closing flush.
        #expect(sends.count == (version == .v2 ? 3 : 2))
        if version == .v2 {
            var decoder = PktLineDecoder()
            decoder.append(sends[1])
            var packets: [PktLine] = []
            while let packet = try decoder.next() { packets.append(packet) }
            #expect(packets.first == .text("command=ls-refs"))
            #expect(packets.last == .flush)
            #expect(decoder.bufferedByteCount == 0)
        }
        #expect(sends.last == PktLine.flush.encoded)
    }
}
