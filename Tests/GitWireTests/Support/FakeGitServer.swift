import Foundation
import GitWire
import GitWireTestSupport

/// A git:// server on loopback that follows a script instead of the protocol, for tests of what
/// clients do when a server misbehaves. It accepts up to `connections` clients, serving each on a
/// thread of its own with the same script, and stops by itself after the last one or at the end
/// of its `lifetime` (scaled by `testSlowness`), whichever comes first; every wait it makes is
/// bounded by that lifetime.
final class FakeGitServer: Sendable {
    /// One thing the server does on a connection, after reading the client's request line.
    enum Step: Sendable {
        /// Sends bytes exactly as given.
        case send([UInt8])
        /// Reads packets up to and including a flush (a protocol v2 command).
        case receiveCommand
        /// Ends its side of the connection (the client reads the end of the stream), then waits
        /// for the client to close.
        case hangUp
        /// Resets the connection: closes it with `SO_LINGER` 0, so the peer gets a TCP reset
        /// (its next read, after the bytes already sent, fails with `ECONNRESET`).
        case reset
    }

    /// What one client did.
    struct Connection: Sendable {
        /// The request line (`git-upload-pack /path\0host=…\0…`), without its length.
        var request: [UInt8] = []
        /// The packets of the commands read with ``Step/receiveCommand``.
        var commands: [PktLine] = []
        /// Whether the client closed the connection (end of stream or reset) while the server
        /// waited, rather than the server giving up at the end of its lifetime.
        var clientClosed = false
        /// Whether the server reset the connection (``Step/reset``).
        var serverReset = false
    }

    /// The port it listens on.
    let port: Int
    /// The address it listens on: `127.0.0.1` or `::1`.
    let host: String
    private let served = Locked<[Int: Connection]>([:])
    private let finished = DispatchSemaphore(value: 0)
    private let requests = DispatchSemaphore(value: 0)
    private let lifetime: Duration

    /// Starts listening and accepting on a thread of its own. After the script (unless it hangs up
    /// first) the server waits for the client to close, so that everything sent is read.
    init(_ steps: [Step], connections: Int = 1, lifetime: Duration = .seconds(60), host: String = "127.0.0.1") throws {
        let listener = try ListeningSocket(host: host)
        port = listener.address.port
        self.host = host
        self.lifetime = lifetime.scaledForSlowRuns
        let deadline = ContinuousClock.now + self.lifetime
        nonisolated(unsafe) let unsafeListener = listener
        let thread = Thread { [self] in
            let serving = DispatchGroup()
            for index in 0..<connections {
                let left = deadline - .now
                guard left > .zero, let pair = try? unsafeListener.accept(timeout: left) else { break }
                nonisolated(unsafe) let unsafePair = pair
                serving.enter()
                Thread { [self] in
                    let connection = Self.serve(unsafePair, steps: steps, deadline: deadline) { requests.signal() }
                    unsafePair.close()
                    served.withLock { $0[index] = connection }
                    serving.leave()
                }.start()
            }
            unsafeListener.close()
            serving.wait()
            finished.signal()
        }
        thread.start()
    }

    /// `git://127.0.0.1:PORT/<path>` (or `[::1]`).
    func url(_ path: String = "repo.git") -> String { "git://\(authority)/\(path)" }

    /// `127.0.0.1:PORT` or `[::1]:PORT`.
    var authority: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Waits for the server to stop (bounded by its lifetime) and returns what its clients did, in
    /// the order they connected.
    func finish() -> [Connection] {
        _ = finished.wait(timeout: .now() + .milliseconds(Int(lifetime.components.seconds * 1000) + 5000))
        return served.withLock { $0.sorted { $0.key < $1.key }.map(\.value) }
    }

    /// Waits (at most `timeout`) until a client's request line has arrived; false if none came.
    func waitForRequest(timeout: Duration = .seconds(10)) -> Bool {
        let milliseconds = Int(timeout.scaledForSlowRuns.components.seconds * 1000)
        return requests.wait(timeout: .now() + .milliseconds(milliseconds)) == .success
    }

    /// Like ``waitForRequest(timeout:)``, but sleeps instead of blocking a thread of the
    /// concurrency pool (the client under test may need it). `timeout` is scaled by
    /// `testSlowness`.
    func requestArrives(within timeout: Duration = .seconds(60)) async -> Bool {
        let deadline = ContinuousClock.now + timeout.scaledForSlowRuns
        while ContinuousClock.now < deadline {
            if waitForRequest(timeout: .zero) { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return false
    }

    private static func serve(
        _ pair: ByteStreamPair, steps: [Step], deadline: ContinuousClock.Instant, requestArrived: () -> Void
    ) -> Connection {
        var connection = Connection()
        var peer = ScriptedPeer(pair, deadline: deadline)
        func nextPacket() -> PktLine? { peer.nextPacket() }
        func waitForClose() { if peer.waitForClose() { connection.clientClosed = true } }
        guard case .data(let request)? = nextPacket() else { return connection }
        connection.request = request
        requestArrived()
        for step in steps {
            switch step {
            case .send(let bytes):
                guard peer.send(bytes) else { return connection }
            case .receiveCommand:
                while let packet = nextPacket() {
                    connection.commands.append(packet)
                    if packet == .flush { break }
                }
            case .hangUp:
                pair.output.close()
                waitForClose()
                return connection
            case .reset:
                pair.abort()
                connection.serverReset = true
                return connection
            }
        }
        waitForClose()
        return connection
    }
}

/// Encodes a text line as a pkt-line the way a (possibly broken) server would: lowercase length,
/// payload as given.
func packet(_ text: String) -> [UInt8] {
    let payload = Array(text.utf8)
    return Array(String(payload.count + 4, radix: 16).leftPaddedForPacket().utf8) + payload
}

/// A flush packet.
let flushPacket = Array("0000".utf8)

extension String {
    fileprivate func leftPaddedForPacket() -> String { String(repeating: "0", count: max(0, 4 - count)) + self }
}
