import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// A server that resets the connection (`SO_LINGER` 0) in the middle of an exchange: every form
/// of ls-remote, clone and the command line fail with a ``ConnectionLostError`` that names what
/// was being read, where git fails with status 128 too.
@Suite("Connections reset mid-exchange")
struct ConnectionLostTests {
    /// As in ``RemoteFailureTests``: the async forms may wait long for the concurrency pool.
    static let serverLifetime: Duration = .seconds(300)

    /// Checks that each error is the connection lost while `activity`, reset by the peer (or,
    /// where `writeMayFail`, broken under a write that met the reset first).
    func expectLost(_ errors: [(any Error)?], while activity: String, writeMayFail: Bool = false) {
        #expect(errors.count == 4)
        for (form, error) in zip(["blocking", "run loop", "async", "refs()"], errors) {
            let lost = error as? ConnectionLostError
            #expect(lost?.kind == .connectionLost, "\(form): \(String(describing: error))")
            #expect(lost?.activity == activity, "\(form)")
            let reasons: [Errno] = writeMayFail ? [.connectionReset, .brokenPipe] : [.connectionReset]
            #expect(lost.map { reasons.contains($0.reason.errno) } == true, "\(form): \(String(describing: error))")
            if lost?.reason.errno == .connectionReset {
                #expect(lost?.description == "connection lost while \(activity): Connection reset by peer", "\(form)")
            }
        }
    }

    /// git fails on the same server with status 128 and prints nothing on standard output; the
    /// command line does too. The messages differ on purpose: git names only the system call that
    /// failed (`fatal: read error: Connection reset by peer`, or `fatal: packet write with format
    /// failed: …` when its request met the reset), gitwire names what it was reading, which is
    /// what a user can act on.
    func expectCommandLineFails(
        _ server: FakeGitServer, version: Int, while activity: String, writeMayFail: Bool = false
    ) throws {
        let expected = try git(["-c", "protocol.version=\(version)", "ls-remote", server.url()], check: false)
        #expect(expected.status == 128, "\(expected.errorText)")
        let gitMessages = ["read error", "packet write with format failed"].flatMap { call in
            ["Connection reset by peer", "Broken pipe"].map { "fatal: \(call): \($0)\n" }
        }
        #expect(gitMessages.contains(expected.errorText), "\(expected.errorText)")
        let actual = try gitwire(["ls-remote", "--protocol-version=\(version)", server.url()])
        #expect(actual.status == 128)
        #expect(actual.standardOutput == expected.standardOutput)
        if writeMayFail {
            #expect(
                actual.errorText == "fatal: connection lost while \(activity): Connection reset by peer\n"
                    || actual.errorText == "fatal: connection lost while \(activity): Broken pipe\n",
                "\(actual.errorText)")
        } else {
            #expect(actual.errorText == "fatal: connection lost while \(activity): Connection reset by peer\n")
        }
    }

    @Test(.onTestThreads) func aResetInsideTheRefAdvertisement() async throws {
        let advertisement = packets(of: try ServerCaptures.v0Advertisement("small.git"))
        try #require(advertisement.count > 4)
        // Three whole packets and half of the fourth, then the reset.
        let fourth = advertisement[3].encoded
        let sent = bytes(of: Array(advertisement.prefix(3))) + fourth.prefix(fourth.count / 2)
        let server = try FakeGitServer([.send(sent), .reset], connections: 6, lifetime: Self.serverLifetime)
        try expectCommandLineFails(server, version: 0, while: "reading the ref advertisement")
        let remote = try Remote(server.url(), timeout: Duration.seconds(60).scaledForSlowRuns)
        expectLost(
            await errorsOfEveryForm(remote, LsRemoteOptions(protocolVersion: .v0)),
            while: "reading the ref advertisement")
        let connections = server.finish()
        #expect(connections.count == 6)
        #expect(connections.allSatisfy { $0.serverReset })
    }

    @Test(.onTestThreads) func aResetInsideTheCapabilityAdvertisement() async throws {
        let capabilities = packets(of: try ServerCaptures.v2Capabilities("small.git"))
        let server = try FakeGitServer(
            [.send(bytes(of: Array(capabilities.prefix(3)))), .reset], connections: 6, lifetime: Self.serverLifetime)
        try expectCommandLineFails(server, version: 2, while: "reading the capability advertisement")
        let remote = try Remote(server.url(), timeout: Duration.seconds(60).scaledForSlowRuns)
        expectLost(await errorsOfEveryForm(remote, LsRemoteOptions()), while: "reading the capability advertisement")
        #expect(server.finish().allSatisfy { $0.serverReset })
    }

    @Test(.onTestThreads) func aResetInsideTheLsRefsResponse() async throws {
        let capabilities = try ServerCaptures.v2Capabilities("small.git")
        let lsRefs = packets(of: try ServerCaptures.lsRefsResponse("small.git"))
        try #require(lsRefs.count > 2)
        let server = try FakeGitServer(
            [.send(capabilities), .receiveCommand, .send(bytes(of: Array(lsRefs.prefix(2)))), .reset],
            connections: 6, lifetime: Self.serverLifetime)
        try expectCommandLineFails(server, version: 2, while: "reading the ls-refs response")
        let remote = try Remote(server.url(), timeout: Duration.seconds(60).scaledForSlowRuns)
        expectLost(await errorsOfEveryForm(remote, LsRemoteOptions()), while: "reading the ls-refs response")
        let connections = server.finish()
        #expect(connections.count == 6)
        #expect(connections.allSatisfy { $0.serverReset && $0.commands.first == .text("command=ls-refs") })
    }

    /// The server resets right after its capabilities, before the client's `ls-refs` arrives:
    /// the client's request meets a reset connection (its write fails with `EPIPE`, or its next
    /// read with `ECONNRESET`, depending on which comes first).
    @Test(.onTestThreads) func aResetBeforeTheLsRefsRequestArrives() async throws {
        let capabilities = try ServerCaptures.v2Capabilities("small.git")
        let server = try FakeGitServer([.send(capabilities), .reset], connections: 6, lifetime: Self.serverLifetime)
        try expectCommandLineFails(server, version: 2, while: "reading the ls-refs response", writeMayFail: true)
        let remote = try Remote(server.url(), timeout: Duration.seconds(60).scaledForSlowRuns)
        expectLost(
            await errorsOfEveryForm(remote, LsRemoteOptions()), while: "reading the ls-refs response",
            writeMayFail: true)
        #expect(server.finish().allSatisfy { $0.serverReset })
    }

    /// A protocol v2 clone whose pack stops halfway with a reset: the blocking and async clones
    /// fail with the connection lost while receiving the pack and leave nothing behind, and
    /// `gitwire clone` fails with status 128 as `git clone` does.
    @Test(.onTestThreads) func aResetInsideThePack() async throws {
        let capabilities = try ServerCaptures.v2Capabilities("small.git")
        let lsRefs = try ServerCaptures.lsRefsResponse("small.git")
        let response = try ServerCaptures.fetchResponse("small.git")
        let packets = packets(of: response)
        // The `packfile` section header, its packets up to the middle of the pack data (band 1),
        // and the first half of the packet that crosses it.
        let start = try #require(packets.firstIndex(of: .text("packfile")))
        let packBytes = packets[(start + 1)...].reduce(0) { $0 + packData($1).count }
        var sent = bytes(of: Array(packets[...start]))
        var packSent = 0
        for packet in packets[(start + 1)...] {
            let encoded = packet.encoded
            if packSent + packData(packet).count > packBytes / 2 {
                sent += encoded.prefix(encoded.count / 2)
                packSent += max(0, encoded.count / 2 - 5)  // less the length and the band byte
                break
            }
            sent += encoded
            packSent += packData(packet).count
        }
        try #require(packSent > 12, "more of the pack than its header is sent")
        let server = try FakeGitServer(
            [.send(capabilities), .receiveCommand, .send(lsRefs), .receiveCommand, .send(sent), .reset],
            connections: 4, lifetime: Self.serverLifetime)
        let directory = try TemporaryDirectory(prefix: "gitwire-reset")

        let expected = try git(
            ["-c", "protocol.version=2", "clone", "--bare", server.url(), directory.appending("git.git")], check: false)
        #expect(expected.status == 128, "\(expected.errorText)")
        let actual = try gitwire([
            "clone", "--bare", "--protocol-version=2", server.url(), directory.appending("cli.git"),
        ])
        #expect(actual.status == 128)
        #expect(
            actual.errorText.hasSuffix("fatal: connection lost while receiving the pack: Connection reset by peer\n"),
            "\(actual.errorText)")

        let remote = try Remote(server.url(), timeout: Duration.seconds(60).scaledForSlowRuns)
        let blocking = Result { try remote.cloneBlocking(into: directory.appending("blocking.git")) }
        let async: Result<FetchResult, any Error>
        do {
            async = .success(try await remote.clone(into: directory.appending("async.git")))
        } catch {
            async = .failure(error)
        }
        for (form, result) in [("blocking", blocking), ("async", async)] {
            guard case .failure(let error) = result else {
                Issue.record("\(form): the clone succeeded")
                continue
            }
            let lost = error as? ConnectionLostError
            #expect(lost?.kind == .connectionLost, "\(form): \(error)")
            #expect("\(error)" == "connection lost while receiving the pack: Connection reset by peer", "\(form)")
        }
        for name in ["cli.git", "blocking.git", "async.git"] {
            #expect(!FileManager.default.fileExists(atPath: directory.appending(name)), "\(name) was left behind")
        }
        let connections = server.finish()
        #expect(connections.count == 4)
        #expect(connections.allSatisfy { $0.serverReset && $0.commands.contains { $0.text == "command=fetch" } })
    }
}

/// The pack bytes a side-band packet carries (band 1), none for progress or other packets.
private func packData(_ packet: PktLine) -> ArraySlice<UInt8> {
    guard let payload = packet.payload, payload.first == 1 else { return [] }
    return payload.dropFirst()
}
