import Foundation
import GitWire

/// A real OpenSSH server (Debian's `sshd`) on 127.0.0.1 with a throwaway host key and a throwaway
/// client key, for ssh:// tests. It runs under `timeout` (for `lifetime` seconds scaled by
/// ``testSlowness``), so it stops by itself, and stops when the value goes away. ``environment`` points `GIT_SSH_COMMAND` at the client key and a known-hosts
/// file that holds only this server's key, with strict host-key checking, so neither git nor
/// gitwire can reach anything else.
public final class SSHServer: @unchecked Sendable {
    /// The port sshd listens on.
    public let port: Int
    /// The user to log in as (the user running the tests).
    public let user: String
    private let process: ChildProcess
    private let directory: TemporaryDirectory

    /// `GIT_SSH_COMMAND` (and `GIT_SSH_VARIANT`) for git and gitwire to reach this server.
    public let environment: [String: String]

    /// Starts sshd, retrying on port collisions, and waits until it answers.
    public init(lifetime: Int = 3600) throws {
        let lifetime = scaledForSlowRuns(seconds: lifetime)
        directory = try TemporaryDirectory(prefix: "gitwire-sshd")
        let base = directory.path
        try FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)
        for key in ["host_key", "client_key"] {
            try run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", key, "-f", "\(base)/\(key)"])
        }
        try FileManager.default.copyItem(atPath: "\(base)/client_key.pub", toPath: "\(base)/authorized_keys")
        user =
            ProcessInfo.processInfo.environment["USER"]
            ?? (try? run(["id", "-un"]).text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? "root"
        let hostKey = try String(contentsOfFile: "\(base)/host_key.pub", encoding: .utf8)
            .split(separator: " ").prefix(2).joined(separator: " ")
        let (port, process) = try startServer(
            launch: { port in
                let config = """
                    Port \(port)
                    ListenAddress 127.0.0.1
                    HostKey \(base)/host_key
                    AuthorizedKeysFile \(base)/authorized_keys
                    PidFile \(base)/sshd.pid
                    StrictModes no
                    UsePAM no
                    PasswordAuthentication no
                    KbdInteractiveAuthentication no
                    PermitRootLogin prohibit-password
                    AcceptEnv GIT_PROTOCOL
                    LogLevel ERROR

                    """
                try config.write(toFile: "\(base)/sshd_config", atomically: true, encoding: .utf8)
                try "[127.0.0.1]:\(port) \(hostKey)\n".write(
                    toFile: "\(base)/known_hosts", atomically: true, encoding: .utf8)
                // Stopped at exit too (startServer registers it): sshd holds the test process's
                // standard error, and the test runner waits for that to close.
                return try ChildProcess.spawnDetached(
                    boundedServerCommand(["/usr/sbin/sshd", "-D", "-f", "\(base)/sshd_config"], lifetime: lifetime))
            }, failure: { SSHServerStartError(port: $0) })
        self.port = port
        self.process = process
        environment = [
            "GIT_SSH_COMMAND":
                "ssh -F /dev/null -i \(base)/client_key -o IdentitiesOnly=yes -o BatchMode=yes"
                + " -o StrictHostKeyChecking=yes -o UserKnownHostsFile=\(base)/known_hosts -o LogLevel=ERROR",
            "GIT_SSH_VARIANT": "ssh",
        ]
    }

    deinit { stop() }

    /// Stops sshd and waits for it to exit.
    public func stop() {
        process.terminate()
        process.reap()
        DaemonRegistry.shared.remove(process)
    }

    /// `ssh://USER@127.0.0.1:PORT<path>` for an absolute `path`.
    public func url(_ path: String) -> String { "ssh://\(user)@127.0.0.1:\(port)\(path)" }
}

/// sshd did not start listening.
public struct SSHServerStartError: Error, CustomStringConvertible {
    /// The port it was asked to listen on.
    public let port: Int
    /// The text shown in test failures.
    public var description: String { "sshd did not start listening on port \(port)" }
}
