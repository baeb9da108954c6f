import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `http.<url>.*` applied as git applies it, over the real `git http-backend` behind
/// `Tools/git-http-server.py`, compared with git 2.39 on real configuration files; the extra
/// headers and proxy passwords are secrets that appear in none of gitwire's outputs.
@Suite("http configuration", .serialized)
struct ConfigHTTPTests {
    static let headers = ["X-Gitwire-One", "X-Gitwire-Two", "X-Gitwire-Three", "X-Gitwire-Four"]
    static let server = Result {
        try HTTPServer(root: TestRepositories.shared.basePath, loggedHeaders: headers + ["Proxy-Authorization"])
    }
    static let other = Result {
        try HTTPServer(
            root: TestRepositories.shared.basePath, address: "127.0.0.2",
            loggedHeaders: headers + ["Proxy-Authorization"])
    }
    static let secure = Result { try HTTPServer(root: TestRepositories.shared.basePath, secure: true) }

    /// The requests `server` logged after `start` lines, each as `METHOD path` and the logged
    /// headers (the user agent left out: git's and gitwire's differ).
    static func requests(_ server: HTTPServer, after start: Int) -> [String] {
        server.loggedRequests().dropFirst(start).map { line in
            line.replacingOccurrences(of: " agent=.* status=", with: " status=", options: .regularExpression)
                .replacingOccurrences(of: " encoding=[^ ]*", with: "", options: .regularExpression)
        }
    }

    /// Runs `arguments` through git, then gitwire, and returns each one's output and the
    /// requests `server` logged for it.
    static func bothLogged(
        _ home: ConfigHome, _ arguments: [String], server: HTTPServer, in directory: String? = nil,
        extra: [String: String] = [:]
    ) throws -> (git: ProcessOutput, gitwire: ProcessOutput, gitRequests: [String], gitwireRequests: [String]) {
        var start = server.loggedRequests().count
        let git = try home.git(arguments, in: directory, extra: extra)
        let gitRequests = requests(server, after: start)
        start = server.loggedRequests().count
        let gitwire = try home.gitwire(arguments, in: directory, extra: extra)
        return (git, gitwire, gitRequests, requests(server, after: start))
    }

    // MARK: http.extraHeader

    static let headerConfigurations: [String] = [
        // Several values, in order.
        """
        [http]
        \textraHeader = X-Gitwire-One: first-secret-1
        \textraHeader = X-Gitwire-Two: second-secret-2

        """,
        // An empty value empties the list; a less specific entry after a more specific one is not
        // taken (git's urlmatch), one for another URL neither.
        """
        [http]
        \textraHeader = X-Gitwire-One: first-secret-1
        [http "http://127.0.0.1:PORT/"]
        \textraHeader =
        \textraHeader = X-Gitwire-Three: third-secret-3
        [http "http://127.0.0.1:PORT/other/"]
        \textraHeader = X-Gitwire-Two: second-secret-2
        [http]
        \textraHeader = X-Gitwire-Four: fourth-secret-4

        """,
        // A path prefix and a host glob, both matching; the longer host wins over a shorter one.
        """
        [http "http://*.0.0.1:PORT/git/"]
        \textraHeader = X-Gitwire-Four: fourth-secret-4
        [http "http://127.0.0.1:PORT/git/small.git"]
        \textraHeader = X-Gitwire-Two: second-secret-2

        """,
    ]

    @Test(arguments: headerConfigurations.indices)
    func extraHeadersReachTheServerAsGitsDo(index: Int) throws {
        let server = try Self.server.get()
        let configuration = Self.headerConfigurations[index].replacingOccurrences(of: "PORT", with: "\(server.port)")
        let home = try ConfigHome(global: configuration)
        for version in ["0", "2"] {
            let runs = try Self.bothLogged(
                home, ["-c", "protocol.version=\(version)", "ls-remote", server.url("/git/small.git")], server: server)
            expectSame((runs.git, runs.gitwire))
            #expect(runs.gitwireRequests == runs.gitRequests)
            #expect(runs.gitRequests.contains { $0.contains("secret") })
        }
    }

    /// The headers are secrets: in no output, trace, recording or error of gitwire's.
    @Test func extraHeadersAppearInNoOutput() throws {
        let server = try Self.server.get()
        let home = try ConfigHome(
            global:
                "[http]\n\textraHeader = X-Gitwire-One: first-secret-1\n\textraHeader = Authorization: Bearer top-secret-token\n"
        )
        let directory = try TemporaryDirectory()
        let trace = directory.appending("trace")
        let list = directory.appending("urls")
        try "\(server.url("/git/small.git"))\n\(server.url("/git/no-such.git"))\n\(server.url("/status/403/x.git"))\n"
            .write(toFile: list, atomically: true, encoding: .utf8)
        let environment = ["GIT_TRACE_PACKET": trace, "GIT_TRACE": trace, "GIT_CURL_VERBOSE": "1"]
        let start = server.loggedRequests().count
        var outputs: [ProcessOutput] = []
        for arguments in [
            ["ls-remote", "--record=\(directory.appending("ls.session"))", server.url("/git/small.git")],
            ["ls-remote", server.url("/git/no-such.git")], ["ls-remote", server.url("/status/401/x.git")],
            ["ls-remote", "--batch", list, "--json"], ["ls-remote", "--batch", list],
            [
                "clone", "--bare", "--progress", "--record=\(directory.appending("clone.session"))",
                server.url("/git/big.git"), directory.appending("clone.git"),
            ],
            ["fetch", server.url("/git/big.git"), directory.appending("clone.git")],
        ] {
            outputs.append(try home.gitwire(arguments, extra: environment.merging(["GIT_TERMINAL_PROMPT": "0"]) { $1 }))
        }
        #expect(outputs[0].status == 0 && outputs[5].status == 0, "\(outputs.map(\.errorText))")
        // The server did get them.
        #expect(Self.requests(server, after: start).allSatisfy { $0.contains("first-secret-1") })
        var shown = outputs.map { $0.text + $0.errorText }
        for file in try FileManager.default.subpathsOfDirectory(atPath: directory.path) {
            let path = directory.appending(file)
            guard !FileManager.default.fileExists(atPath: path + "/.") else { continue }
            shown.append(String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data(), as: UTF8.self))
        }
        #expect(shown.count > outputs.count)
        for text in shown {
            #expect(!text.contains("first-secret-1"))
            #expect(!text.contains("top-secret-token"))
        }
    }

    /// Like a credential, an extra header goes to the repository's origin only: a redirect to
    /// another origin leaves it behind (git 2.39 sends it there too, libcurl following).
    @Test func extraHeadersStayWithTheirOrigin() throws {
        let server = try Self.server.get()
        let other = try Self.other.get()
        let home = try ConfigHome(global: "[http]\n\textraHeader = X-Gitwire-One: first-secret-1\n")
        let url = server.url("/cross/\(other.authority)/git/small.git")
        let runs = try Self.bothLogged(home, ["ls-remote", url], server: other)
        #expect(runs.gitwire.status == 0 && runs.git.status == 0, "\(runs.gitwire.errorText)")
        #expect(runs.gitwire.text == runs.git.text)
        #expect(!runs.gitwireRequests.isEmpty)
        #expect(runs.gitwireRequests.allSatisfy { !$0.contains("secret") })
        #expect(runs.gitRequests.contains { $0.contains("first-secret-1") })
    }

    // MARK: TLS

    @Test func certificateSettingsAsGitTakesThem() throws {
        let secure = try Self.secure.get()
        let authority = try #require(secure.authorityPath)
        let url = secure.url("/git/small.git")
        let cases: [(String, Bool)] = [
            ("", false),
            ("[http]\n\tsslCAInfo = \(authority)\n", true),
            ("[http \"https://\(secure.authority)/\"]\n\tsslCAInfo = \(authority)\n", true),
            ("[http \"https://example.org/\"]\n\tsslCAInfo = \(authority)\n", false),
            ("[http]\n\tsslCAInfo = ~/authority.pem\n", true),
            ("[http \"https://\(secure.authority)/git\"]\n\tsslVerify = false\n", true),
            ("[http]\n\tsslVerify = false\n[http \"https://\(secure.authority)/\"]\n\tsslVerify = true\n", false),
            ("[http]\n\tsslVerify = bogus\n", false),
        ]
        for (configuration, works) in cases {
            let home = try ConfigHome(global: configuration)
            try FileManager.default.copyItem(atPath: authority, toPath: home.directory.appending("authority.pem"))
            let (git, gitwire) = try home.both(["ls-remote", url])
            #expect(git.status == (works ? 0 : 128), "\(configuration): \(git.errorText)")
            #expect(gitwire.status == git.status, "\(configuration): \(gitwire.errorText)")
            #expect(gitwire.text == git.text)
            if configuration.contains("bogus") { #expect(gitwire.errorText == git.errorText) }
        }
    }

    // MARK: Proxies

    @Test func proxiesFromTheConfiguration() throws {
        let server = try Self.server.get()
        let proxy = try Self.other.get()
        let url = server.url("/git/small.git")
        let password = "p@ss-secret"
        let cases: [(configuration: String, environment: [String: String], proxied: Bool)] = [
            ("[http]\n\tproxy = http://\(proxy.authority)\n", [:], true),
            ("[http]\n\tproxy = \(proxy.authority)\n", [:], true),
            (
                "[http]\n\tproxy = http://puser:p%40ss-secret@\(proxy.authority)\n\tproxyAuthMethod = basic\n", [:],
                true
            ),
            ("[http]\n\tproxy = http://puser:p%40ss-secret@\(proxy.authority)\n", [:], true),
            ("[http]\n\tproxy =\n", ["http_proxy": "http://127.0.0.1:1"], false),
            ("[http]\n\tproxy = http://127.0.0.1:1\n", ["NO_PROXY": "127.0.0.1"], false),
            ("[http \"http://\(server.authority)/\"]\n\tproxy = \(proxy.authority)\n", [:], true),
            ("[http]\n\tproxy = http://\(proxy.authority)\n\tproxyAuthMethod = bogus\n", [:], true),
        ]
        for testCase in cases {
            let home = try ConfigHome(global: testCase.configuration)
            let runs = try Self.bothLogged(home, ["ls-remote", url], server: proxy, extra: testCase.environment)
            expectSame((runs.git, runs.gitwire))
            #expect(runs.git.status == 0, "\(testCase.configuration): \(runs.git.errorText)")
            #expect(runs.gitwireRequests == runs.gitRequests, "\(testCase.configuration)")
            #expect(runs.gitRequests.contains { $0.hasPrefix("PROXY") } == testCase.proxied)
            #expect(!(runs.gitwire.text + runs.gitwire.errorText).contains(password))
        }
        // The proxy of a remote named in a repository wins over http.proxy.
        let home = try ConfigHome(global: "[http]\n\tproxy = http://127.0.0.1:1\n")
        let repository = home.directory.appending("work")
        _ = try home.git(["init", "-q", repository])
        _ = try home.git(["config", "remote.viaproxy.url", url], in: repository)
        _ = try home.git(
            ["config", "remote.viaproxy.proxy", "http://puser:p%40ss-secret@\(proxy.authority)"], in: repository)
        _ = try home.git(["config", "remote.viaproxy.proxyAuthMethod", "basic"], in: repository)
        let runs = try Self.bothLogged(home, ["ls-remote", "viaproxy"], server: proxy, in: repository)
        expectSame((runs.git, runs.gitwire))
        #expect(runs.gitwireRequests == runs.gitRequests)
        #expect(runs.gitRequests.contains { $0.contains("Proxy-Authorization=[puser:\(password)]") })
    }

    // MARK: Redirects, version, user agent, slow servers

    @Test(arguments: ["", "initial", "true", "false", "bogus"])
    func redirectsAsConfigured(setting: String) throws {
        let server = try Self.server.get()
        let home = try ConfigHome(global: setting.isEmpty ? "" : "[http]\n\tfollowRedirects = \(setting)\n")
        for version in ["0", "2"] {
            expectSame(
                try home.both(["-c", "protocol.version=\(version)", "ls-remote", server.url("/redirect/small.git")]))
        }
    }

    @Test(arguments: ["HTTP/1.1", "HTTP/2", "HTTP/3"])
    func httpVersionAsConfigured(version: String) throws {
        let server = try Self.server.get()
        let home = try ConfigHome(global: "[http]\n\tversion = \(version)\n")
        expectSame(try home.both(["ls-remote", server.url("/git/small.git")]))
    }

    @Test func userAgentFromTheConfigurationThenTheEnvironment() throws {
        let server = try Self.server.get()
        let home = try ConfigHome(global: "[http]\n\tuserAgent = configured-agent/1.0\n")
        for environment in [[:], ["GIT_HTTP_USER_AGENT": "environment-agent/2.0"]] {
            let start = server.loggedRequests().count
            let runs = try home.both(["ls-remote", server.url("/git/small.git")], extra: environment)
            expectSame(runs)
            let agents = server.loggedRequests().dropFirst(start).compactMap { line in
                line.split(separator: " ").first { $0.hasPrefix("agent=") }.map(String.init)
            }
            let expected = "agent=" + (environment["GIT_HTTP_USER_AGENT"] ?? "configured-agent/1.0")
            #expect(!agents.isEmpty && agents.allSatisfy { $0 == expected }, "\(agents)")
        }
    }

    /// A server slower than `http.lowSpeedLimit` for `http.lowSpeedTime` seconds is given up on,
    /// with libcurl's words, as git gives it up.
    @Test func slowServersAreGivenUpOn() throws {
        let server = try Self.server.get()
        let home = try ConfigHome(global: "[http]\n\tlowSpeedLimit = 1000000\n\tlowSpeedTime = 1\n")
        let runs = try home.both(["-c", "protocol.version=0", "ls-remote", server.url("/hostile/trickle/2/small.git")])
        expectSame(runs)
        #expect(runs.gitwire.errorText.contains("Operation too slow"))
    }
}
