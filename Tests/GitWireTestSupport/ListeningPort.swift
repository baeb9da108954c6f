import Foundation
import GitWire

/// Ports for tests.
public enum ListeningPort {
    /// A loopback port that refuses connections for as long as the value lives. Nothing else can
    /// start listening on it meanwhile (a port that was free a moment ago could be taken by any
    /// other process on a busy machine before the test connects).
    package static func refusing() throws -> ReservedPort { try ReservedPort(host: "127.0.0.1") }
}

/// Whether a socket can listen on `::1` here.
public let loopbackIPv6IsAvailable: Bool = (try? ListeningSocket(host: "::1")) != nil

/// Starts a background server on a free loopback port: `launch` starts it for a port, and the
/// port is tried again (up to ten times) when the server does not listen there within ten seconds
/// (scaled by ``testSlowness``): another process took the port meanwhile, so the server could not
/// bind it. A port counts as the server's only once `process` or a process it started listens on
/// it (on 127.0.0.1, and on ::1 too where `ipv6`), so a server that lost the port to another one
/// is never taken for ready. Returns the port and the process, registered to be stopped when the
/// test process exits; throws `failure(port)` when no try worked.
func startServer(
    ipv6: Bool = false, launch: (Int) throws -> ChildProcess, failure: (Int) -> any Error
) throws -> (port: Int, process: ChildProcess) {
    var lastPort = 0
    for _ in 0..<10 {
        let port = try ListeningSocket(host: "127.0.0.1").address.port
        lastPort = port
        let process = try launch(port)
        if waitUntilListening(port: port, ipv6: ipv6, process: process) {
            DaemonRegistry.shared.add(process)
            return (port, process)
        }
        process.terminate()
        process.reap()
    }
    throw failure(lastPort)
}

/// Whether `process` (or a process it started) listens on loopback `port` within ten seconds
/// (scaled by ``testSlowness``), while it runs.
private func waitUntilListening(port: Int, ipv6: Bool, process: ChildProcess) -> Bool {
    let deadline = ContinuousClock.now + Duration.seconds(10).scaledForSlowRuns
    while ContinuousClock.now < deadline && process.exitCodeIfEnded() == nil {
        if ProcessListeners.listen(pid: process.pid, port: port, ipv6: ipv6) { return true }
        usleep(20_000)
    }
    return false
}

/// Who listens on which TCP port, from `/proc`.
enum ProcessListeners {
    /// Whether `pid` or one of its descendants has a listening TCP socket on `port` over IPv4,
    /// and over IPv6 too where `ipv6`.
    static func listen(pid: Int32, port: Int, ipv6: Bool) -> Bool {
        let ours = socketInodes(of: descendants(of: pid) + [pid])
        let v4 = listeningInodes(table: "/proc/net/tcp", port: port)
        guard !v4.isDisjoint(with: ours) else { return false }
        return !ipv6 || !listeningInodes(table: "/proc/net/tcp6", port: port).isDisjoint(with: ours)
    }

    /// The inodes of the sockets in `table` (`/proc/net/tcp` or `tcp6`) listening on `port`.
    static func listeningInodes(table: String, port: Int) -> Set<String> {
        guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { return [] }
        var inodes: Set<String> = []
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode …
            guard fields.count > 9, fields[3] == "0A" else { continue }
            guard let colon = fields[1].lastIndex(of: ":"), Int(fields[1][colon...].dropFirst(), radix: 16) == port
            else { continue }
            inodes.insert(String(fields[9]))
        }
        return inodes
    }

    /// The inodes of the sockets the processes `pids` have open.
    static func socketInodes(of pids: [Int32]) -> Set<String> {
        var inodes: Set<String> = []
        for pid in pids {
            let directory = "/proc/\(pid)/fd"
            for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(name)"),
                    target.hasPrefix("socket:["), target.hasSuffix("]")
                else { continue }
                inodes.insert(String(target.dropFirst("socket:[".count).dropLast()))
            }
        }
        return inodes
    }

    /// Every process whose chain of parents leads to `pid`.
    static func descendants(of pid: Int32) -> [Int32] {
        var parents: [Int32: Int32] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let child = Int32(name),
                let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // "pid (command) state ppid …": the command may hold spaces and parentheses.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, let parent = Int32(fields[1]) { parents[child] = parent }
        }
        var found: [Int32] = []
        var frontier = [pid]
        while let parent = frontier.popLast() {
            let children = parents.filter { $0.value == parent }.map(\.key)
            found += children
            frontier += children
        }
        return found
    }
}
