import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// A server whose negotiation answers never end (issue #19, red team): `ACK <id> continue` over
/// and over after `done` (v0), an `acknowledgments` section of endless `ACK` lines (v2), an
/// endless `wanted-refs` section (v2, where gitwire asked for no ref by name). Each line is well
/// formed, so neither the timeout (data keeps coming) nor a memory bound ends it: git 2.39 and
/// gitwire both read them forever. An honest upload-pack acknowledges each `have` at most once
/// and adds at most a `ready` and a `NAK` (or the final `ACK`) to each request; gitwire now holds
/// the server to that, and to `wanted-refs` naming only what was wanted by name (as git does: it
/// dies on the first such line, `unexpected wanted-ref`).
@Suite("hostile servers: answers that never end")
struct EndlessAnswerTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var version: Int
        var target: HostileFetchTarget
        var testDescription: String { "v\(version) \(target.rawValue)" }
    }

    static let cases = [0, 2].flatMap { version in
        HostileFetchTarget.allCases.map { Case(version: version, target: $0) }
    }

    @Test(arguments: cases)
    func negotiationThatNeverEndsIsRefused(_ test: Case) throws {
        let fixture = try HostileFetchFixture.shared.get()
        let dialect: HostileFetchServer.Dialect =
            test.version == 2
            ? .v2(capabilities: fixture.v2Capabilities, refs: fixture.v2Refs)
            : .v0(advertisement: fixture.advertisement)
        let server = try HostileFetchServer(dialect, negotiation: .endless, then: [])
        let work = try TemporaryDirectory(prefix: "gitwire-endless")
        let version = "--protocol-version=\(test.version)"
        var arguments: [String]
        var before: String?
        switch test.target {
        case .clone:
            arguments = ["clone", "--bare", version, server.url(), work.appending("clone.git")]
        case .fetch:
            let local = work.appending("local.git")
            try run(["cp", "-a", fixture.localTemplate, local])
            before = try gitText(["for-each-ref"], in: local)
            arguments = ["fetch", version, server.url(), local, "+refs/heads/*:refs/heads/*"]
        }
        // Killed if it never ends (the server stops after its lifetime, 60 s, at the latest).
        let run = try measuringPeakMemory([gitwireExecutable] + arguments, killAfter: 45)
        let connections = server.finish()
        #expect(run.output.status == 128, "\(run.output.errorText)")
        #expect(connections.first?.clientClosed == true)
        let expected =
            test.version == 2 && test.target == .clone
            ? "unexpected wanted-ref: '\(fixture.mainID) refs/heads/unasked'"
            : "more acknowledgments than haves were sent"
        #expect(run.output.errorText.contains("fatal: protocol error: \(expected)"), "\(run.output.errorText)")
        switch test.target {
        case .clone: #expect(!FileManager.default.fileExists(atPath: work.appending("clone.git")))
        case .fetch: #expect(try gitText(["for-each-ref"], in: work.appending("local.git")) == before)
        }
    }

    /// The v2 `wanted-refs` line, side by side with git 2.39 (which refuses it the same way).
    @Test func unexpectedWantedRefAsGit() throws {
        let fixture = try HostileFetchFixture.shared.get()
        let server = try HostileFetchServer(
            .v2(capabilities: fixture.v2Capabilities, refs: fixture.v2Refs), negotiation: .endless, then: [],
            connections: 2)
        let work = try TemporaryDirectory(prefix: "gitwire-endless")
        let theirs = try git(
            ["-c", "protocol.version=2", "clone", "--bare", server.url(), work.appending("git.git")], check: false)
        let ours = try gitwire(["clone", "--bare", "--protocol-version=2", server.url(), work.appending("ours.git")])
        _ = server.finish()
        #expect(theirs.status == 128)
        let line = "unexpected wanted-ref: '\(fixture.mainID) refs/heads/unasked'"
        #expect(theirs.errorText.hasSuffix("fatal: \(line)\n"), "\(theirs.errorText)")
        #expect(ours.status == 128)
        #expect(ours.errorText.hasSuffix("fatal: protocol error: \(line)\n"), "\(ours.errorText)")
    }
}
