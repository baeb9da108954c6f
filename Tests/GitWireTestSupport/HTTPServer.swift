import Foundation
import GitWire

/// The real `git http-backend` behind `Tools/git-http-server.py` on 127.0.0.1, over HTTP or over
/// HTTPS with a throwaway certificate authority made by `openssl` for this server only. It binds
/// port 0 itself (no port is picked, closed and reused), stops by itself after `lifetime`
/// seconds (scaled by ``testSlowness``), and is stopped when the value goes away or the test
/// process exits.
///
/// Paths: `/git/<repo>` smart HTTP; `/auth/<repo>` the same behind basic auth (``username``,
/// ``password``); `/authpost/<repo>` the discovery open, every `POST` behind basic auth;
/// `/redirect/<repo>` a 301 to `/git/<repo>`; `/cross/<host:port>/<path>` a 302 to another
/// origin (`/cross-userinfo/…` with `location-user:location-pw@` in the `Location`,
/// `/authcross/…` after basic auth); `/dumb/<repo>` static files; `/status/<code>/…` that status;
/// anything else 404.
public final class HTTPServer: @unchecked Sendable {
    /// The port the server listens on.
    public let port: Int
    /// Whether it speaks HTTPS.
    public let isSecure: Bool
    /// The loopback address it listens on (`127.0.0.1`, or another 127.x host).
    public let address: String
    /// The user name `/auth/` accepts.
    public let username: String
    /// The password `/auth/` accepts.
    public let password: String
    /// The file the server logs each request to (method, path, git headers, status; with
    /// `logsAuthorization`, the `Authorization` header decoded and the `Host` header).
    public let logPath: String
    /// `GIT_SSL_CAINFO` pointing at the throwaway authority (HTTPS), for git and gitwire alike.
    public let environment: [String: String]
    /// The throwaway authority's certificate (HTTPS only).
    public let authorityPath: String?
    private let process: ChildProcess
    private let directory: TemporaryDirectory

    /// Serves the repositories under `root` on `address`; `/auth/` and its kin accept
    /// `username`:`password`. `logsAuthorization`: the log shows which credentials came with each
    /// request (for tests of where credentials go); `loggedHeaders`: every value of these headers
    /// each request carried, as ` Name=[v1|v2]` (`Proxy-Authorization` decoded); `logsFraming`:
    /// how each body came (` body=length`, `chunked`, `flush` for a body of just `0000`, `none`)
    /// and whether an `Authorization` header came (` authorization=yes`/`no`, never its value).
    public init(
        root: String, secure: Bool = false, lifetime: Int = 3600, address: String = "127.0.0.1",
        username: String = "gitwire", password: String = "s3cret-pw", logsAuthorization: Bool = false,
        loggedHeaders: [String] = [], logsFraming: Bool = false
    ) throws {
        let lifetime = scaledForSlowRuns(seconds: lifetime)
        directory = try TemporaryDirectory(prefix: "gitwire-http")
        let base = directory.path
        isSecure = secure
        self.address = address
        self.username = username
        self.password = password
        logPath = "\(base)/requests.log"
        var arguments = [
            "python3", "\(toolsDirectory)/git-http-server.py", "--root", root, "--lifetime", String(lifetime),
            "--user", "\(username):\(password)", "--log", logPath, "--port-file", "\(base)/port",
            "--address", address,
        ]
        if logsAuthorization { arguments.append("--log-authorization") }
        if logsFraming { arguments.append("--log-framing") }
        for header in loggedHeaders { arguments += ["--log-header", header] }
        if secure {
            let authority = try Self.makeCertificates(in: base)
            arguments += ["--certificate", "\(base)/server.pem", "--key", "\(base)/server.key"]
            authorityPath = authority
            environment = ["GIT_SSL_CAINFO": authority]
        } else {
            authorityPath = nil
            environment = [:]
        }
        process = try ChildProcess.spawnDetached(boundedServerCommand(arguments, lifetime: lifetime + 5))
        DaemonRegistry.shared.add(process)
        let deadline = Date().addingTimeInterval(20)
        var port: Int?
        while port == nil && Date() < deadline && process.exitCodeIfEnded() == nil {
            port = (try? String(contentsOfFile: "\(base)/port", encoding: .utf8))
                .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            if port == nil { usleep(20_000) }
        }
        guard let port else {
            process.terminate()
            process.reap()
            DaemonRegistry.shared.remove(process)
            throw HTTPServerStartError()
        }
        self.port = port
    }

    deinit {
        process.terminate()
        process.reap()
        DaemonRegistry.shared.remove(process)
    }

    /// `http(s)://<address>:PORT<path>`; `path` starts with `/`.
    public func url(_ path: String) -> String { "\(isSecure ? "https" : "http")://\(address):\(port)\(path)" }

    /// `<address>:PORT`: the server's host and port as URLs write them.
    public var authority: String { "\(address):\(port)" }

    /// The requests logged so far, one line each.
    public func loggedRequests() -> [String] {
        ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Makes a certificate authority and a server certificate for 127.0.0.1 and localhost signed
    /// by it; returns the authority's certificate file.
    private static func makeCertificates(in base: String) throws -> String {
        let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try run(
            ["openssl", "req", "-x509"] + curve + [
                "-keyout", "\(base)/ca.key", "-out", "\(base)/ca.pem", "-days", "2", "-subj", "/CN=gitwire test CA",
            ])
        try run(
            ["openssl", "req"] + curve + [
                "-keyout", "\(base)/server.key", "-out", "\(base)/server.csr", "-subj", "/CN=127.0.0.1",
            ])
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n".write(
            toFile: "\(base)/server.ext", atomically: true, encoding: .utf8)
        try run([
            "openssl", "x509", "-req", "-in", "\(base)/server.csr", "-CA", "\(base)/ca.pem", "-CAkey", "\(base)/ca.key",
            "-CAcreateserial", "-out", "\(base)/server.pem", "-days", "2", "-extfile", "\(base)/server.ext",
        ])
        return "\(base)/ca.pem"
    }
}

/// The HTTP test server did not start.
public struct HTTPServerStartError: Error, CustomStringConvertible {
    /// The text shown in test failures.
    public var description: String { "the test HTTP server (Tools/git-http-server.py) did not start" }
}

/// The repository's `Tools/` directory.
public let toolsDirectory: String = URL(fileURLWithPath: fixturesDirectory).deletingLastPathComponent()
    .appendingPathComponent("Tools").path
