import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// Smart HTTP and HTTPS against the real `git http-backend` behind a local server (HTTPS with a
/// throwaway certificate authority): ls-remote, clone and fetch give git's answers over the same
/// server, v0 and v2; redirects, 404, other statuses, basic auth through the URL and through a
/// credential helper, and dumb servers are met as git meets them.
@Suite("http transport", .serialized)
struct HTTPTransportTests {
    static let plain = Result { try HTTPServer(root: TestRepositories.shared.basePath) }
    static let secure = Result { try HTTPServer(root: TestRepositories.shared.basePath, secure: true) }

    static func server(secure: Bool) throws -> HTTPServer { try (secure ? Self.secure : Self.plain).get() }

    /// The environment git and gitwire both run with here, plus the server's.
    static func environment(_ server: HTTPServer, _ extra: [String: String] = [:]) -> [String: String] {
        reproducibleGitEnvironment.merging(server.environment) { $1 }.merging(extra) { $1 }
    }

    @Test(arguments: [false, true], ["0", "2"])
    func lsRemoteCloneAndFetchMatchGit(secure: Bool, version: String) throws {
        let server = try Self.server(secure: secure)
        let url = server.url("/git/big.git")
        let environment = Self.environment(server)
        try expectLsRemoteCloneAndFetchMatchGit(url: url, version: version, environment: environment)
        // The v2 header reached the server on every request, and only for v2.
        let requests = server.loggedRequests().filter { $0.contains("/git/big.git") }
        #expect(requests.contains { $0.contains("agent=git/2.0 (gitwire/") })
        if version == "2" { #expect(requests.contains { $0.hasPrefix("POST") && $0.contains("protocol=version=2") }) }
    }

    /// 404, other statuses and a redirect: the same standard output, standard error and status as
    /// git, byte for byte (git shows a plain-text error page as `remote:` lines).
    @Test(arguments: [false, true])
    func statusesAndRedirectsMatchGit(secure: Bool) throws {
        let server = try Self.server(secure: secure)
        let environment = Self.environment(server)
        for path in ["/nothing/small.git", "/status/500/small.git", "/status/403/small.git", "/redirect/small.git"] {
            let url = server.url(path)
            let expected = try git(["ls-remote", url], environment: environment, check: false)
            let ours = try gitwire(["ls-remote", url], environment: environment)
            #expect(ours.status == expected.status, "\(path)")
            #expect(ours.text == expected.text, "\(path)")
            #expect(ours.errorText == expected.errorText, "\(path)")
        }
        // After a redirect, the requests go to where the server redirected.
        let directory = try TemporaryDirectory()
        let cloned = try gitwire(
            ["clone", "--bare", server.url("/redirect/small.git"), directory.appending("c.git")],
            environment: environment)
        #expect(cloned.status == 0, "\(cloned.errorText)")
        #expect(cloned.errorText.contains("warning: redirecting to \(server.url("/git/small.git/"))\n"))
        let posts = server.loggedRequests().filter { $0.hasPrefix("POST") }
        #expect(posts.contains { $0.hasPrefix("POST /git/small.git/git-upload-pack") })
        #expect(!posts.contains { $0.hasPrefix("POST /redirect/") })
    }

    /// A helper that logs what git asks of it and answers `get` with `username`/`password`.
    static func credentialHelper(in directory: TemporaryDirectory, username: String, password: String) throws
        -> (environment: [String: String], log: String)
    {
        let log = directory.appending("helper.log")
        let script = directory.appending("helper.sh")
        try """
        #!/bin/sh
        echo "$1" >> '\(log)'
        cat > /dev/null
        if [ "$1" = get ]; then printf 'username=%s\\npassword=%s\\n' '\(username)' '\(password)'; fi

        """.write(toFile: script, atomically: true, encoding: .utf8)
        try run(["chmod", "+x", script])
        return (["GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "credential.helper", "GIT_CONFIG_VALUE_0": script], log)
    }

    @Test(arguments: [false, true])
    func credentialsAsGitUsesThem(secure: Bool) throws {
        let server = try Self.server(secure: secure)
        let url = server.url("/auth/small.git")
        let expectedRefs = try git(["ls-remote", server.url("/git/small.git")], environment: Self.environment(server))

        // No credentials anywhere, prompts off: git's message.
        let none = Self.environment(server)
        let gitNone = try git(["ls-remote", url], environment: none, check: false)
        let oursNone = try gitwire(["ls-remote", url], environment: none)
        #expect(oursNone.status == 128)
        #expect(oursNone.errorText == gitNone.errorText)

        // A credential helper that knows them: asked (get), then told they worked (store).
        for (password, works) in [(server.password, true), ("wrong", false)] {
            let directory = try TemporaryDirectory()
            let helper = try Self.credentialHelper(in: directory, username: server.username, password: password)
            let environment = Self.environment(server, helper.environment)
            let ours = try gitwire(["ls-remote", url], environment: environment)
            let ourLog = try String(contentsOfFile: helper.log, encoding: .utf8)
            try FileManager.default.removeItem(atPath: helper.log)
            let theirs = try git(["ls-remote", url], environment: environment, check: false)
            let theirLog = try String(contentsOfFile: helper.log, encoding: .utf8)
            #expect(ours.status == theirs.status)
            #expect(ours.text == theirs.text)
            #expect(ours.errorText == theirs.errorText)
            #expect(ourLog == theirLog)
            #expect(ourLog == (works ? "get\nstore\n" : "get\nerase\n"))
            if works { #expect(ours.text == expectedRefs.text) }
        }

        // Credentials in the URL: used, and never shown.
        let withPassword = url.replacingOccurrences(of: "://", with: "://\(server.username):\(server.password)@")
        let ours = try gitwire(["ls-remote", withPassword], environment: none)
        #expect(ours.status == 0, "\(ours.errorText)")
        #expect(ours.text == expectedRefs.text)
        let wrong = url.replacingOccurrences(of: "://", with: "://\(server.username):not-\(server.password)@")
        let oursWrong = try gitwire(["ls-remote", wrong], environment: none)
        let gitWrong = try git(["ls-remote", wrong], environment: none, check: false)
        #expect(oursWrong.status == 128)
        #expect(oursWrong.errorText == gitWrong.errorText)
        #expect(!oursWrong.errorText.contains(server.password))

        // Not in packet traces, not in recordings.
        let directory = try TemporaryDirectory()
        let fixture = directory.appending("auth.session")
        let traced = try gitwire(
            ["ls-remote", "--record=\(fixture)", withPassword],
            environment: none.merging(["GIT_TRACE_PACKET": "1"]) { $1 })
        #expect(traced.status == 0, "\(traced.errorText)")
        #expect(!traced.errorText.contains(server.password) && !traced.text.contains(server.password))
        let recorded = try String(contentsOfFile: fixture, encoding: .utf8)
        #expect(!recorded.contains(server.password))
    }

    @Test func dumbServersAreAClearError() throws {
        let server = try Self.server(secure: false)
        // The test server serves /dumb/ from its root: a copy with the files dumb clients read.
        let copy = "\(TestRepositories.shared.basePath)/dumb-copy-\(UUID().uuidString).git"
        try run(["cp", "-r", TestRepositories.shared.path("small.git"), copy])
        defer { try? FileManager.default.removeItem(atPath: copy) }
        try git(["update-server-info"], in: copy)
        #expect(try git(["ls-remote", server.url("/dumb/" + (copy as NSString).lastPathComponent)]).status == 0)
        let dumbURL = server.url("/dumb/" + (copy as NSString).lastPathComponent)
        let ours = try gitwire(["ls-remote", dumbURL], environment: Self.environment(server))
        #expect(ours.status == 128)
        #expect(
            ours.errorText
                == "fatal: \(dumbURL)/ is served by a dumb HTTP server (no git content type); gitwire speaks only smart HTTP\n"
        )
        do {
            _ = try Remote(dumbURL, timeout: .seconds(30)).lsRemoteBlocking()
            Issue.record("a dumb server was taken for a smart one")
        } catch let error as HTTPError {
            #expect(error.kind == .protocol)
            #expect(error.reason == .dumbServer)
        }
    }

    @Test func untrustedCertificatesAreRefusedUnlessVerificationIsOff() throws {
        let server = try Self.server(secure: true)
        let url = server.url("/git/small.git")
        let untrusting = reproducibleGitEnvironment.merging(["GIT_SSL_CAINFO": "/etc/ssl/certs/ca-certificates.crt"]) {
            $1
        }
        let refused = try gitwire(["ls-remote", url], environment: untrusting)
        #expect(refused.status == 128)
        #expect(refused.errorText.hasPrefix("fatal: unable to access '\(url)/': "))
        #expect(try git(["ls-remote", url], environment: untrusting, check: false).status == 128)
        let unverified = try gitwire(
            ["ls-remote", url], environment: untrusting.merging(["GIT_SSL_NO_VERIFY": "1"]) { $1 })
        #expect(unverified.status == 0, "\(unverified.errorText)")
        #expect(!unverified.text.isEmpty)
        do {
            _ = try Remote(url, timeout: .seconds(30)).lsRemoteBlocking()
            Issue.record("an untrusted certificate was accepted")
        } catch let error as HTTPError {
            #expect(error.kind == .connect)
        }
    }

    /// A fetch whose negotiation sends more than 1 KiB of `have` lines: git gzips such request
    /// bodies, and so does gitwire; the server takes them and the fetch ends as git's does.
    @Test func largeNegotiationRequestsAreGzipped() throws {
        let server = try Self.server(secure: false)
        let directory = try TemporaryDirectory()
        // The server's repository (under the server's root) moves on by five commits...
        let served = "\(TestRepositories.shared.basePath)/gzip-\(UUID().uuidString).git"
        defer { try? FileManager.default.removeItem(atPath: served) }
        try git(["clone", "-q", "--bare", TestRepositories.shared.path("small.git"), served])
        let upstream = directory.appending("upstream")
        try git(["clone", "-q", served, upstream])
        for index in 0..<5 { try git(["commit", "-q", "--allow-empty", "-m", "upstream \(index)"], in: upstream) }
        try git(["push", "-q", "origin", "HEAD:refs/heads/main"], in: upstream)
        // ...while the local ones have 150 commits of their own, which the server has never seen.
        let work = directory.appending("work")
        try git(["clone", "-q", TestRepositories.shared.path("small.git"), work])
        for index in 0..<150 { try git(["commit", "-q", "--allow-empty", "-m", "local \(index)"], in: work) }
        let mine = directory.appending("mine.git")
        let theirs = directory.appending("theirs.git")
        for target in [mine, theirs] {
            try git(["clone", "-q", "--bare", TestRepositories.shared.path("small.git"), target])
            try git(["push", "-q", target, "HEAD:refs/heads/local-only"], in: work)
            try git(["update-ref", "-d", "refs/heads/main"], in: target)
        }
        let url = server.url("/git/" + (served as NSString).lastPathComponent)
        let before = server.loggedRequests().count
        // The refspec given, as git fetch takes it (a URL alone fetches only HEAD).
        let ours = try gitwire(
            ["fetch", url, mine, "+refs/heads/*:refs/heads/*"], environment: Self.environment(server))
        #expect(ours.status == 0, "\(ours.errorText)")
        let posts = server.loggedRequests().dropFirst(before).filter { $0.hasPrefix("POST") }
        #expect(posts.count >= 2)
        #expect(posts.contains { $0.contains("encoding=gzip") })
        try git(["fetch", "-q", url, "+refs/heads/*:refs/heads/*"], in: theirs, environment: Self.environment(server))
        #expect(
            try gitText(["for-each-ref", "refs/heads"], in: mine)
                == gitText(["for-each-ref", "refs/heads"], in: theirs))
        try git(["fsck", "--connectivity-only", "--no-dangling"], in: mine)
    }

    /// Many HTTPS sessions on one run loop and its one thread, and the async form.
    @Test(.onTestThreads) func manySessionsShareOneLoop() async throws {
        let server = try Self.server(secure: true)
        let url = server.url("/git/small.git")
        var options = HTTPOptions()
        options.tls.caInfo = server.authorityPath
        let transport = try HTTPTransport(url: url, options: options)
        let remote = Remote(url: try RemoteURL(url), transport: transport, timeout: .seconds(60))
        let expected = try await remote.lsRemote().refs
        #expect(expected.count > 1)
        let loop = try EpollRunLoop()
        var results: [Result<RefListing, any Error>] = []
        for _ in 0..<24 {
            remote.lsRemote(in: loop) { result in results.append(result) }
        }
        loop.run(until: .now + .seconds(120))
        #expect(results.count == 24)
        for result in results { #expect(try result.get().refs == expected) }
        let viaAsync = try await remote.lsRemote(LsRemoteOptions(protocolVersion: .v0)).refs
        #expect(viaAsync == expected)
    }

    /// `http_proxy` sends the requests through the proxy (the test server, which serves absolute
    /// URLs as a proxy would); `no_proxy` exempts a host, as git (libcurl) does.
    @Test func proxiesFromTheEnvironment() throws {
        let server = try Self.server(secure: false)
        let url = "http://gitwire-proxy-test.invalid/git/small.git"
        let proxy = ["http_proxy": server.url(""), "HTTP_PROXY": server.url("")]
        let environment = Self.environment(server, proxy)
        let expected = try git(["ls-remote", url], environment: environment)
        let ours = try gitwire(["ls-remote", url], environment: environment)
        #expect(ours.status == 0, "\(ours.errorText)")
        #expect(ours.text == expected.text)
        #expect(server.loggedRequests().contains("PROXY \(url)/info/refs?service=git-upload-pack"))
        let exempt = try gitwire(
            ["ls-remote", url], environment: environment.merging(["no_proxy": "gitwire-proxy-test.invalid"]) { $1 })
        #expect(exempt.status == 128)
        #expect(exempt.errorText.hasPrefix("fatal: unable to access '\(url)/': Could not resolve host"))
    }

    /// Servers that misbehave over HTTP: each ends in a clear error, promptly, with nothing from
    /// the server reaching the terminal unfiltered; where git fails the same way, with git's
    /// message byte for byte.
    @Test func hostileServersEndInClearErrors() throws {
        let server = try Self.server(secure: false)
        let environment = Self.environment(server)
        for kind in ["redirect-loop", "garbage", "truncated", "huge-header", "control-text"] {
            let url = server.url("/hostile/\(kind)/small.git")
            let expected = try git(["ls-remote", url], environment: environment, check: false)
            let ours = try gitwire(["ls-remote", "--timeout=20", url], environment: environment)
            #expect(ours.status == 128, "\(kind)")
            if kind == "control-text" {
                // git passes the escape sequences through; gitwire shows them as `?`.
                #expect(expected.errorText.contains("\u{1b}"))
                #expect(
                    ours.errorText == "remote: ?]0;TITLE??[31mred?[0m?over?2Jcsi\n" + expected.errorText.split(
                        separator: "\n"
                    ).last! + "\n")
                // The library's error holds the text masked by the same rules: C0 controls and
                // C1 controls (U+009B is CSI on some terminals) alike.
                do {
                    _ = try Remote(url, timeout: .seconds(30)).lsRemoteBlocking()
                    Issue.record("a 500 was taken for an answer")
                } catch let error as HTTPError {
                    #expect(error.serverMessage == "?]0;TITLE??[31mred?[0m?over?2Jcsi")
                }
            } else {
                #expect(ours.errorText == expected.errorText, "\(kind)")
            }
            #expect(!ours.standardError.contains { $0 < 0x20 && $0 != 0x0a }, "\(kind)")
        }
        // Where git's message is its own remote helper's, gitwire says what the server did.
        let noFlush = try gitwire(["ls-remote", server.url("/hostile/no-flush/small.git")], environment: environment)
        #expect(noFlush.status == 128)
        #expect(
            noFlush.errorText
                == "fatal: protocol error: invalid server response; the discovery response ended before its advertisement\n"
        )
        let htmlURL = server.url("/hostile/html-post/small.git")
        let html = try gitwire(["ls-remote", "--protocol-version=2", htmlURL], environment: environment)
        #expect(html.status == 128)
        #expect(
            html.errorText
                == "fatal: unable to access '\(htmlURL)/': the server answered with content type 'text/html', not git's\n"
        )
        // A server that stops sending: git waits for ever; gitwire's --timeout ends it.
        let started = ContinuousClock.now
        let timeout = Duration.seconds(2).scaledForSlowRuns.secondsText
        let stalled = try gitwire(
            ["ls-remote", "--timeout=\(timeout)", server.url("/hostile/stall/small.git")], environment: environment)
        #expect(stalled.status == 128)
        #expect(stalled.errorText == "fatal: timed out after \(timeout) s reading the ref advertisement\n")
        #expect(ContinuousClock.now - started < Duration.seconds(20).scaledForSlowRuns)
    }

    /// A server that accepts the connection and never answers: `--timeout` ends it.
    @Test func aSilentServerTimesOut() throws {
        let listener = try ListeningSocket(host: "127.0.0.1")
        let url = "http://127.0.0.1:\(listener.address.port)/silent.git"
        let started = ContinuousClock.now
        let timeout = Duration.seconds(1).scaledForSlowRuns.secondsText
        let ours = try gitwire(["ls-remote", "--timeout=\(timeout)", url], environment: reproducibleGitEnvironment)
        #expect(ours.status == 128)
        #expect(ours.errorText.contains("timed out after \(timeout) s"), "\(ours.errorText)")
        #expect(ContinuousClock.now - started < Duration.seconds(30).scaledForSlowRuns)
        _ = listener
    }
}
