import Foundation
import GitWire

/// Ports for tests.
public enum ListeningPort {
    /// A loopback port that nothing listens on (it was free a moment ago).
    public static func free() throws -> Int { try ListeningSocket(host: "127.0.0.1").address.port }
}

/// Whether a socket can listen on `::1` here.
public let loopbackIPv6IsAvailable: Bool = (try? ListeningSocket(host: "::1")) != nil

/// Starts a background server on a free loopback port: `launch` starts it for a port, and the
/// port is tried again (up to ten times) when the server does not answer within ten seconds
/// (another process took the port meanwhile). Returns the port and the process, registered to
/// be stopped when the test process exits; throws `failure(port)` when no try worked.
func startServer(
    launch: (Int) throws -> ChildProcess, failure: (Int) -> any Error
) throws -> (port: Int, process: ChildProcess) {
    var lastPort = 0
    for _ in 0..<10 {
        let port = try ListeningSocket(host: "127.0.0.1").address.port
        lastPort = port
        let process = try launch(port)
        if waitUntilListening(port: port, process: process) {
            DaemonRegistry.shared.add(process)
            return (port, process)
        }
        process.terminate()
        process.reap()
    }
    throw failure(lastPort)
}

/// Whether something accepts connections on 127.0.0.1:`port` within ten seconds, while `process`
/// runs.
private func waitUntilListening(port: Int, process: ChildProcess) -> Bool {
    let deadline = Date().addingTimeInterval(10)
    while Date() < deadline && process.exitCodeIfEnded() == nil {
        let pair = ByteStreamPair.connecting(toHost: "127.0.0.1", port: port, connectTimeout: .seconds(1))
        if (try? pair.open()) != nil {
            pair.close()
            return true
        }
        usleep(20_000)
    }
    return false
}
