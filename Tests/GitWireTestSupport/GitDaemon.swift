import Foundation
import GitWire

/// A real `git daemon` on loopback serving every repository under a base path. It stops when the
/// value goes away, when the test process exits or dies, and in any case after `lifetime` seconds
/// scaled by ``testSlowness`` (it runs under `timeout`, see `boundedServerCommand`), so a crashed
/// test never leaves it behind. The default lifetime is far longer than any test run, sanitized
/// runs included.
public final class GitDaemon: @unchecked Sendable {
    /// The port it listens on (the same on 127.0.0.1 and, where available, ::1).
    public let port: Int
    /// Whether it also listens on ::1.
    public let hasIPv6: Bool
    private let process: ChildProcess

    /// Starts a daemon for `basePath`, retrying on port collisions, and waits until it answers.
    /// `extraArguments` go to `git daemon` before the base path (`--informative-errors`, say);
    /// `environment` is added to the daemon's (and so its upload-pack's and receive-pack's).
    public init(
        basePath: String, lifetime: Int = 3600, extraArguments: [String] = [], environment: [String: String] = [:]
    ) throws {
        let lifetime = scaledForSlowRuns(seconds: lifetime)
        let ipv6 = loopbackIPv6IsAvailable
        (port, process) = try startServer(
            ipv6: ipv6,
            launch: { port in
                let arguments =
                    ["git", "daemon", "--reuseaddr", "--listen=127.0.0.1"] + (ipv6 ? ["--listen=::1"] : []) + [
                        "--port=\(port)", "--export-all", "--base-path=\(basePath)", "--max-connections=256",
                    ] + extraArguments + [basePath]
                return try ChildProcess.spawnDetached(
                    boundedServerCommand(arguments, lifetime: lifetime),
                    environment: reproducibleGitEnvironment.merging(environment) { $1 })
            }, failure: { DaemonStartError(port: $0) })
        hasIPv6 = ipv6
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
    /// so it does not wait: the watching shell and `timeout` pass the signal on and the daemon
    /// ends by itself (were this handler skipped, the shell would notice the test process gone).
    func stopAll() {
        let identifiers = lock.withLock { running.values.map(\.pid) }
        for pid in identifiers { kill(pid, SIGTERM) }
    }
}
