import Foundation
import GitWire
import GitWireReplay
import GitWireTestSupport
import Testing

/// Recording needs real servers (loopback), so these suites are not named like the replay ones.
@Suite("Recording live sessions")
struct RecordingTests {
    @Test(arguments: ProtocolVersion.allCases)
    func aRecordedSessionPlaysBackToTheSameRefs(version: ProtocolVersion) throws {
        let repositories = TestRepositories.shared
        let url = repositories.daemon.url("big.git")
        var remote = try Remote(url)
        let recorder = SessionRecorder()
        remote.transport = RecordingTransport(wrapping: remote.transport, recorder: recorder, command: "test")
        let options = LsRemoteOptions(protocolVersion: version)
        let live = try remote.lsRemoteBlocking(options)
        let session = try #require(recorder.sessions.first)
        #expect(recorder.sessions.count == 1)
        #expect(session.host == "127.0.0.1:\(repositories.daemon.port)")
        #expect(session.events.last == .end(.client))

        let saved = try Session(fixtureText: session.fixtureText)
        for chunking in [ReplayChunking.whole, .oneByte] {
            let transport = ReplayTransport(saved, chunking: chunking)
            let replayed = try Remote(url: try RemoteURL(url), transport: transport).lsRemoteBlocking(options)
            #expect(replayed == live)
            try transport.verify()
        }
    }

    @Test func theCommandLineRecordsWhatItDid() throws {
        let directory = try TemporaryDirectory()
        let url = TestRepositories.shared.daemon.url("small.git")
        let result = try gitwire(["ls-remote", "--record=\(directory.appending("s.session"))", "--symref", url])
        #expect(result.status == 0)
        let session = try Session(contentsOfFile: directory.appending("s.session"))
        #expect(session.command == "gitwire ls-remote --symref \(url)")
        #expect(session.protocolVersion == .v2)
        #expect(session.path == "/small.git")
        let failed = try gitwire([
            "ls-remote", "--record=\(directory.appending("err.session"))",
            TestRepositories.shared.daemon.url("nope.git"),
        ])
        #expect(failed.status == 128)
        let errorSession = try Session(contentsOfFile: directory.appending("err.session"))
        #expect(
            errorSession.fixtureText.contains("pkt \"ERR access denied or repository not exported: /nope.git\"") == true
        )
    }

    @Test(arguments: [ProtocolVersion.v0, .v2])
    func theProxyRecordsGitCloningThroughIt(version: ProtocolVersion) throws {
        let repositories = TestRepositories.shared
        let output = try TemporaryDirectory()
        let daemonPort = repositories.daemon.port
        let path = try Self.recordOneConnection(
            proxy: { loop in
                try RecordingProxy(
                    listenHost: "127.0.0.1", listenPort: 0, upstreamHost: "127.0.0.1", upstreamPort: daemonPort,
                    outputDirectory: output.appending("fixtures"), loop: loop)
            },
            client: { proxyPort in
                try git([
                    "-c", "protocol.version=\(version.rawValue)", "clone", "--bare", "-q",
                    "git://127.0.0.1:\(proxyPort)/small.git", output.appending("clone.git"),
                ])
            })
        let session = try Session(contentsOfFile: path)
        #expect(session.path == "/small.git")
        #expect(session.protocolVersion == version)
        let fetch = try DecodedFetch(session)
        #expect(!fetch.pack.isEmpty)
        let objects = try gitText(["count-objects", "-v"], in: output.appending("clone.git"))
        #expect(objects.contains("in-pack: \(try #require(try PackHeader.parse(fetch.pack[...])).objectCount)"))
    }

    /// git clones over smart HTTP through the HTTP recording proxy; gitwire, replaying that
    /// recording with git's agent string, sends exactly the requests git sent, one stateless
    /// request per recorded POST, and writes the same refs git's clone wrote.
    @Test(arguments: [ProtocolVersion.v0, .v2])
    func theHTTPProxyRecordsGitCloningThroughIt(version: ProtocolVersion) throws {
        let server = try HTTPServer(root: TestRepositories.shared.basePath, lifetime: 120)
        let output = try TemporaryDirectory()
        let upstream = server.url("")
        let gitClone = output.appending("git.git")
        let path = try Self.recordOneConnection(
            proxy: { loop in
                try HTTPRecordingProxy(
                    listenHost: "127.0.0.1", listenPort: 0, upstream: upstream,
                    outputDirectory: output.appending("fixtures"), loop: loop)
            },
            client: { proxyPort in
                try git([
                    "-c", "protocol.version=\(version.rawValue)", "clone", "--bare", "-q",
                    "http://127.0.0.1:\(proxyPort)/git/small.git", gitClone,
                ])
            })
        let session = try Session(contentsOfFile: path)
        #expect(session.transport == "http")
        #expect(session.path == "/git/small.git")
        #expect(session.protocolVersion == version)
        #expect(session.fixtureText.contains("http \"GET /git/small.git/info/refs?service=git-upload-pack"))
        #expect(session.fixtureText.contains("http \"POST /git/small.git/git-upload-pack"))

        let agent = try #require(
            DecodedFetch(session).clientPackets.lazy.compactMap { packet -> String? in
                guard let text = packet.text, let range = text.range(of: "agent=") else { return nil }
                return String(text[range.upperBound...].prefix { $0 != " " && $0 != "\n" })
            }.first)
        let replay = ReplayTransport(session, chunking: .sizes([1, 4096]))
        let remote = Remote(url: try RemoteURL("http://127.0.0.1\(session.path)"), transport: replay)
        let mine = output.appending("mine.git")
        _ = try remote.cloneBlocking(
            into: mine,
            options: RepositoryFetchOptions(
                fetch: FetchOptions(protocolVersion: version, progress: false, agent: agent)))
        try replay.verify()
        #expect(try gitText(["for-each-ref"], in: mine) == gitText(["for-each-ref"], in: gitClone))
    }

    /// Runs the proxy `proxy` makes on a run loop of its own thread, runs `client` with the port
    /// it listens on, and returns the fixture of the first connection it recorded.
    static func recordOneConnection(
        proxy makeProxy: @escaping @Sendable (EpollRunLoop) throws -> any SessionRecordingProxy,
        client: (Int) throws -> Void
    ) throws -> String {
        let ready = Locked<Int?>(nil)
        let written = Locked<[String]>([])
        let proxyThread = Thread {
            guard let loop = try? EpollRunLoop(), let proxy = try? makeProxy(loop) else { return }
            proxy.onFinishedConnection = { result in
                if case .success(let path) = result { written.withLock { $0.append(path) } }
                loop.stop()
            }
            ready.withLock { $0 = proxy.address.port }
            loop.run(until: .now + Duration.seconds(60).scaledForSlowRuns)
            proxy.close()
        }
        proxyThread.start()
        var port: Int?
        _ = waitUntil(within: .seconds(5)) {
            port = ready.withLock { $0 }
            return port != nil
        }
        try client(try #require(port))
        _ = waitUntil(within: .seconds(5)) { !written.withLock { $0.isEmpty } }
        return try #require(written.withLock { $0.first })
    }
}
