import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// Servers that keep talking without ever getting anywhere (issue #19, red team, second round):
/// each packet is well formed and data keeps coming, so neither the timeout (it bounds each
/// wait) nor a memory bound ends the exchange, and git 2.39 reads all of them for ever.
/// - the same `shallow <id>` line over and over, in v0's shallow list and in v2's `shallow-info`
///   section (upload-pack repeats a commit only when several wants lead to it; gitwire allows
///   65,536 repeats in one answer beyond one for each want);
/// - progress (band 2) or keep-alive packets with no pack data (upload-pack sends 8 KiB of
///   progress for all of git.git; gitwire allows 16 MiB more than the pack bytes received);
/// - in v2, empty `shallow-info` sections one after the other (each section comes at most once,
///   in a fixed order; git dies on the second, `expected 'packfile'`).
@Suite("hostile servers: chatter that never ends")
struct EndlessChatterTests {
    enum Chatter: String, CaseIterable, Sendable {
        case repeatedShallow, progress, keepAlives, progressAfterHalfThePack, repeatedSections
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var chatter: Chatter
        var version: Int
        var target: HostileFetchTarget
        var testDescription: String { "\(chatter.rawValue), v\(version) \(target.rawValue)" }
    }

    /// Every case of the cheap kinds; one or two of each kind that floods 16 MiB (several
    /// seconds each in a debug build), between them both protocols and both targets.
    static let cases =
        [Chatter.repeatedShallow, .repeatedSections].flatMap { chatter in
            (chatter == .repeatedSections ? [2] : [0, 2]).flatMap { version in
                HostileFetchTarget.allCases.map { Case(chatter: chatter, version: version, target: $0) }
            }
        } + [
            Case(chatter: .progress, version: 0, target: .clone), Case(chatter: .progress, version: 2, target: .fetch),
            Case(chatter: .keepAlives, version: 2, target: .clone),
            Case(chatter: .progressAfterHalfThePack, version: 0, target: .fetch),
        ]

    /// The v0 advertisement with `shallow` among the capabilities, for requests that deepen.
    static func advertisementWithShallow(_ fixture: HostileFetchFixture) throws -> [UInt8] {
        var decoder = PktLineDecoder()
        decoder.append(fixture.advertisement)
        var packets: [PktLine] = []
        while let packet = try decoder.next() { packets.append(packet) }
        guard case .data(let first) = packets.first else { throw FetchTestProblem("no advertisement") }
        packets[0] = .data(Array(first.dropLast()) + Array(" shallow\n".utf8))
        return packets.flatMap(\.encoded)
    }

    @Test(arguments: cases)
    func chatterThatNeverEndsIsRefused(_ test: Case) throws {
        let fixture = try HostileFetchFixture.shared.get()
        let deepens = test.chatter == .repeatedShallow
        let dialect: HostileFetchServer.Dialect =
            test.version == 2
            ? .v2(capabilities: fixture.v2Capabilities, refs: fixture.v2Refs)
            : .v0(advertisement: deepens ? try Self.advertisementWithShallow(fixture) : fixture.advertisement)
        let pack = fixture.pack(for: test.target)
        let progress = sideBandPacket(2, Array("Counting objects: 1\r".utf8))
        let negotiation: HostileFetchServer.Negotiation
        var steps: [HostileFetchServer.Step] = []
        switch test.chatter {
        case .repeatedShallow: negotiation = .endlessShallow
        case .repeatedSections: negotiation = .endlessSections
        case .progress:
            negotiation = .nak
            steps = [.flood(progress)]
        case .keepAlives:
            negotiation = .nak
            steps = [.flood(Array("0005\u{1}".utf8))]
        case .progressAfterHalfThePack:
            negotiation = .nak
            steps = [.send(sideBandPacket(1, pack[..<(pack.count / 2)])), .flood(progress)]
        }
        let server = try HostileFetchServer(dialect, negotiation: negotiation, then: steps, lifetime: .seconds(150))
        let work = try TemporaryDirectory(prefix: "gitwire-chatter")
        var arguments = ["--quiet", "--protocol-version=\(test.version)"]
        if deepens { arguments.append("--depth=1") }
        var before: String?
        switch test.target {
        case .clone:
            arguments = ["clone", "--bare"] + arguments + [server.url(), work.appending("clone.git")]
        case .fetch:
            let local = work.appending("local.git")
            try run(["cp", "-a", fixture.localTemplate, local])
            before = try gitText(["for-each-ref"], in: local)
            arguments = ["fetch"] + arguments + [server.url(), local, "+refs/heads/*:refs/heads/*"]
        }
        // Killed if it never ends (the server stops after its lifetime at the latest). A debug
        // build takes several seconds to read 16 MiB of chatter, over 45 on a machine at load 20
        // (a CI run there was killed at 45 s): both bounds leave room for that.
        let run = try measuringPeakMemory([gitwireExecutable] + arguments, killAfter: 120)
        let connections = server.finish()
        #expect(run.output.status == 128, "\(run.output.errorText.suffix(500))")
        #expect(connections.first?.clientClosed == true)
        let allowance = SideBandDemultiplexer.chatterAllowance
        let expected: String
        switch test.chatter {
        case .repeatedShallow: expected = "too many repeated shallow lines: 'shallow \(fixture.mainID)'"
        case .repeatedSections: expected = "expected 'packfile': 'shallow-info'"
        case .progress, .keepAlives:
            // The first packet past the allowance: 24 bytes of progress, or 5 of keep-alive.
            let size = test.chatter == .progress ? progress.count : 5
            expected = "\((allowance / size + 1) * size) bytes of progress and keep-alive packets for 0 bytes of pack"
        case .progressAfterHalfThePack:
            let data = pack.count / 2
            expected =
                "\(((allowance + data) / progress.count + 1) * progress.count) bytes of progress and keep-alive"
                + " packets for \(data) bytes of pack"
        }
        #expect(
            run.output.errorText.contains("fatal: protocol error: \(expected)"), "\(run.output.errorText.suffix(500))")
        #expect(run.peakMemory < peakMemoryBound(200 << 20), "peak \(mebibytes(run.peakMemory))")
        switch test.target {
        case .clone: #expect(!FileManager.default.fileExists(atPath: work.appending("clone.git")))
        case .fetch: #expect(try gitText(["for-each-ref"], in: work.appending("local.git")) == before)
        }
    }

    /// A second `shallow-info` section, side by side with git 2.39 (which refuses it the same way).
    @Test func repeatedSectionAsGit() throws {
        let fixture = try HostileFetchFixture.shared.get()
        let server = try HostileFetchServer(
            .v2(capabilities: fixture.v2Capabilities, refs: fixture.v2Refs), negotiation: .endlessSections,
            then: [], connections: 2)
        let work = try TemporaryDirectory(prefix: "gitwire-chatter")
        let theirs = try git(
            ["-c", "protocol.version=2", "clone", "--bare", server.url(), work.appending("git.git")], check: false)
        let ours = try gitwire(["clone", "--bare", "--protocol-version=2", server.url(), work.appending("ours.git")])
        _ = server.finish()
        #expect(theirs.status == 128)
        #expect(
            theirs.errorText.hasSuffix("fatal: expected 'packfile', received 'shallow-info'\n"), "\(theirs.errorText)")
        #expect(ours.status == 128)
        #expect(
            ours.errorText.hasSuffix("fatal: protocol error: expected 'packfile': 'shallow-info'\n"),
            "\(ours.errorText)")
    }

    /// The allowance at its edge: progress up to 16 MiB beyond the pack passes, one packet more
    /// fails, and pack data raises the limit byte for byte.
    @Test func chatterAllowanceEdge() throws {
        var demultiplexer = SideBandDemultiplexer()
        let line = PktLine.data([2] + Array(repeating: UInt8(ascii: "."), count: 1019))  // 1 KiB with its header
        let keepAlive = PktLine.data([1])
        for _ in 0..<(SideBandDemultiplexer.chatterAllowance / 1024 - 1) { _ = try demultiplexer.receive(line) }
        for _ in 0..<(1024 / 5) { _ = try demultiplexer.receive(keepAlive) }
        #expect(demultiplexer.chatterByteCount == SideBandDemultiplexer.chatterAllowance - 4)
        #expect(throws: ProtocolError.self) { try demultiplexer.receive(keepAlive) }

        var withPack = SideBandDemultiplexer()
        _ = try withPack.receive(.data([1] + Array(repeating: 0, count: 2048)))
        for _ in 0..<(SideBandDemultiplexer.chatterAllowance / 1024 + 2) { _ = try withPack.receive(line) }
        #expect(throws: ProtocolError.self) { try withPack.receive(line) }
    }
}
