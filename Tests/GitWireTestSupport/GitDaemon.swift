import Foundation
import GitWire

/// A real `git daemon` on loopback serving every repository under a base path. It stops when the
/// value goes away, when the test process exits, and in any case after `lifetime` (it runs under
/// `timeout`), so a crashed test never leaves it behind.
public final class GitDaemon: @unchecked Sendable {
    /// The port it listens on (the same on 127.0.0.1 and, where available, ::1).
    public let port: Int
    /// Whether it also listens on ::1.
    public let hasIPv6: Bool
    private let process: ChildProcess

    /// Starts a daemon for `basePath`, retrying on port collisions, and waits until it answers.
    /// `extraArguments` go to `git daemon` before the base path (`--informative-errors`, say).
    public init(basePath: String, lifetime: Int = 1800, extraArguments: [String] = []) throws {
        var lastError: (any Error)?
        for _ in 0..<10 {
            let port = try ListeningSocket(host: "127.0.0.1").address.port
            let ipv6 = (try? ListeningSocket(host: "::1", port: port)) != nil
            let arguments =
                [
                    "timeout", "--signal=TERM", String(lifetime), "git", "daemon", "--reuseaddr",
                    "--listen=127.0.0.1",
                ] + (ipv6 ? ["--listen=::1"] : []) + [
                    "--port=\(port)", "--export-all", "--base-path=\(basePath)", "--max-connections=256",
                ] + extraArguments + [basePath]
            let process = try ChildProcess.spawnDetached(arguments, environment: reproducibleGitEnvironment)
            if Self.waitUntilListening(port: port, process: process) {
                self.port = port
                self.hasIPv6 = ipv6
                self.process = process
                DaemonRegistry.shared.add(process)
                return
            }
            process.terminate()
            process.reap()
            lastError = DaemonStartError(port: port)
        }
        throw lastError ?? DaemonStartError(port: 0)
    }

    deinit { stop() }

    /// Stops the daemon and waits for it to exit.
    public func stop() {
        process.terminate()
        process.reap()
        DaemonRegistry.shared.remove(process)
    }

    /// `git://127.0.0.1:PORT/<path>`.
    public func url(_ path: String) -> String { "git://127.0.0.1:\(port)/\(path)" }

    private static func waitUntilListening(port: Int, process: ChildProcess) -> Bool {
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
}

/// The daemon did not come up.
public struct DaemonStartError: Error, CustomStringConvertible {
    /// The port it was started on.
    public let port: Int
    /// The text shown in test failures.
    public var description: String { "git daemon did not start listening on port \(port)" }
}

/// Stops every daemon still running when the process exits.
final class DaemonRegistry: @unchecked Sendable {
    static let shared = DaemonRegistry()
    private let lock = NSLock()
    private var running: [ObjectIdentifier: ChildProcess] = [:]

    private init() {
        atexit {
            DaemonRegistry.shared.stopAll()
        }
    }

    func add(_ process: ChildProcess) { lock.withLock { running[ObjectIdentifier(process)] = process } }
    func remove(_ process: ChildProcess) { lock.withLock { running[ObjectIdentifier(process)] = nil } }

    /// Sends every daemon `SIGTERM`. Runs at exit, where Foundation's waiting no longer works,
    /// so it does not wait: `timeout` passes the signal on and the daemon ends by itself.
    func stopAll() {
        let identifiers = lock.withLock { running.values.map(\.pid) }
        for pid in identifiers { kill(pid, SIGTERM) }
    }
}
