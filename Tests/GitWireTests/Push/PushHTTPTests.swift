import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// Pushes over smart HTTP request by request as git makes them: a body within `http.postBuffer`
/// whole with `Content-Length`, a larger one after git's probe request with `Transfer-Encoding:
/// chunked`, the credential the discovery settled sent with each request at once, and a large
/// push's memory bounded.
@Suite struct PushHTTPTests {
    /// A credential helper that answers the test server's user and password (never printed).
    static func credentialEnvironment(_ server: HTTPServer, extra: [(String, String)] = []) -> [String: String] {
        let entries =
            [("credential.helper", "!f() { echo username=\(server.username); echo password=\(server.password); }; f")]
            + extra
        var environment = ["GIT_CONFIG_COUNT": String(entries.count)]
        for (index, entry) in entries.enumerated() {
            environment["GIT_CONFIG_KEY_\(index)"] = entry.0
            environment["GIT_CONFIG_VALUE_\(index)"] = entry.1
        }
        return environment
    }

    /// A logged request without the parts that differ between git and gitwire (the agent):
    /// method, path, status, how the body came, whether a credential came, `Content-Encoding`.
    static func shape(_ line: String) -> String {
        let words = line.split(separator: " ").map(String.init)
        let kept = words.filter { word in
            ["status=", "body=", "authorization=", "encoding="].contains { word.hasPrefix($0) }
        }
        return ([words[0], words[1]] + kept).joined(separator: " ")
    }

    /// Adds a commit of `bytes` random (incompressible) bytes to the scenario's local repository.
    static func addRandomFile(_ scenario: PushScenario, bytes: Int, name: String) throws {
        let random = try #require(FileHandle(forReadingAtPath: "/dev/urandom"))
        defer { try? random.close() }
        let data = random.readData(ofLength: bytes)
        try data.write(to: URL(fileURLWithPath: "\(scenario.local)/\(name)"))
        try git(["add", name], in: scenario.local)
        try git(["commit", "--quiet", "-m", "add \(name)"], in: scenario.local)
    }

    @Test(
        "requests as git's: small push whole, large push probed then chunked, credentials at once",
        arguments: [false, true])
    func requestSequence(_ large: Bool) throws {
        let scenario = try PushScenario()
        if large { try Self.addRandomFile(scenario, bytes: 300_000, name: "large.bin") }
        let server = try HTTPServer(root: scenario.root, logsFraming: true)
        // With 128 KiB, a body up to 65,552 bytes goes whole (git keeps room for one packet).
        let environment = Self.credentialEnvironment(
            server, extra: large ? [("http.postBuffer", "128k")] : [])
        var marks: [Int] = []
        try scenario.expectSameAsGit(
            [server.url("/auth/served.git"), "main", "feature", "v1"], environment: environment
        ) {
            marks.append(server.loggedRequests().count)
        }
        let lines = server.loggedRequests()
        try #require(marks.count == 2)
        let fromGit = lines[marks[0]..<marks[1]].map(Self.shape)
        let fromGitwire = lines[marks[1]...].map(Self.shape)
        #expect(fromGitwire == fromGit)
        let posts = fromGit.filter { $0.hasPrefix("POST") }
        // What git does, so that the comparison above means something.
        #expect(posts.map { $0.contains("body=chunked") } == (large ? [false, true] : [false]), "\(fromGit)")
        #expect(posts.allSatisfy { $0.contains("authorization=yes") }, "\(fromGit)")
        #expect(!lines.joined().contains(server.password))
    }

    /// `--record` passes the live connection's way of sending on: a push larger than
    /// `http.postBuffer` goes after git's probe request, chunked, as git's does, and the
    /// recording holds the probe's lone flush before the commands.
    @Test("a recorded push makes git's requests: small whole, large probed then chunked", arguments: [false, true])
    func recordedRequestSequence(_ large: Bool) throws {
        let scenario = try PushScenario()
        if large { try Self.addRandomFile(scenario, bytes: 300_000, name: "large.bin") }
        let server = try HTTPServer(root: scenario.root, logsFraming: true)
        var environment = Self.credentialEnvironment(server, extra: [("http.postBuffer", "128k")])
        environment = reproducibleGitEnvironment.merging(environment) { $1 }
        let arguments = [server.url("/auth/served.git"), "main", "feature", "v1"]
        try scenario.reset()
        let fromGit = try git(["push"] + arguments, in: scenario.local, environment: environment, check: false)
        let mark = server.loggedRequests().count
        try scenario.reset()
        let session = scenario.directory.appending("push.session")
        let recorded = try gitwire(
            ["push", "--record=\(session)"] + arguments, in: scenario.local, environment: environment)
        #expect(recorded.status == fromGit.status, "\(recorded.errorText)")
        #expect(recorded.errorText == fromGit.errorText)
        let lines = server.loggedRequests()
        let fromGitwire = lines[mark...].map(Self.shape)
        let gitRequests = lines[..<mark].map(Self.shape)
        #expect(fromGitwire == gitRequests)
        #expect(
            gitRequests.filter { $0.hasPrefix("POST") }.map { $0.contains("body=chunked") }
                == (large ? [false, true] : [false]), "\(gitRequests)")
        // The probe's flush, then its request line, recorded before the commands.
        let text = try String(contentsOfFile: session, encoding: .utf8)
        #expect(text.contains("client\n  flush\nclient\n  http \"POST ") == large)
        #expect(!text.contains(server.password))
    }

    @Test("a large push's memory stays bounded: the pack is streamed, never held whole")
    func largePushMemory() throws {
        let scenario = try PushScenario()
        // 32 MiB of incompressible blobs, packed (the pack writer copies them as stored).
        let random = try #require(FileHandle(forReadingAtPath: "/dev/urandom"))
        defer { try? random.close() }
        for index in 0..<32 {
            try random.readData(ofLength: 1 << 20).write(to: URL(fileURLWithPath: "\(scenario.local)/blob\(index).bin"))
        }
        try git(["add", "."], in: scenario.local)
        try git(["commit", "--quiet", "-m", "32 MiB of blobs"], in: scenario.local)
        try git(["repack", "-adq"], in: scenario.local)
        let server = try HTTPServer(root: scenario.root, logsFraming: true)
        try scenario.reset()
        let url = server.url("/git/served.git")
        let measured = try measuringPeakMemory(
            [gitwireExecutable, "-C", scenario.local, "push", "-q", url, "main"],
            environment: reproducibleGitEnvironment, killAfter: 600)
        #expect(measured.output.status == 0, "\(measured.output.errorText)")
        #expect(try scenario.serverState().fsck == 0)
        #expect(
            try gitText(["rev-parse", "main"], in: scenario.served)
                == gitText(["rev-parse", "main"], in: scenario.local))
        #expect(server.loggedRequests().contains { $0.hasPrefix("POST") && $0.contains("body=chunked") })
        // Held whole, the 32 MiB pack alone (twice: the body and libcurl's copy) would exceed this.
        print("peak \(mebibytes(measured.peakMemory)) for a push of a 32 MiB pack over HTTP")
        #expect(
            measured.peakMemory < peakMemoryBound(40 << 20),
            "peak \(mebibytes(measured.peakMemory)) for a push of a 32 MiB pack")
    }

    @Test("an advertisement of a million refs: only the refs the push needs are held")
    func hugeAdvertisement() throws {
        let scenario = try PushScenario()
        try scenario.reset()
        let server = try HTTPServer(root: scenario.root)
        // The real advertisement with 80 MiB of made-up ref lines (84 bytes each: about a
        // million refs) before its flush, gzip-encoded; the POST goes to the real receive-pack.
        let url = server.url("/hostile/gzip-bomb-refs/80/served.git")
        let measured = try measuringPeakMemory(
            [gitwireExecutable, "-C", scenario.local, "push", "-q", url, "main"],
            environment: reproducibleGitEnvironment, killAfter: 900)
        #expect(measured.output.status == 0, "\(measured.output.errorText)")
        #expect(
            try gitText(["rev-parse", "main"], in: scenario.served)
                == gitText(["rev-parse", "main"], in: scenario.local))
        #expect(try scenario.serverState().fsck == 0)
        print("peak \(mebibytes(measured.peakMemory)) for a push against an advertisement of a million refs")
        // Held (and copied into the plan's sets), a million refs took about 480 MiB.
        #expect(
            measured.peakMemory < peakMemoryBound(100 << 20),
            "peak \(mebibytes(measured.peakMemory)) against an advertisement of a million refs")
    }
}
