import Foundation
import GitWire
import GitWireTestSupport
import Testing

@testable import GitWireReplay

@Suite("Replay fixture format")
struct ReplayFormatTests {
    @Test(arguments: sessionFixtures(in: "ls-remote") + sessionFixtures(in: "fetch") + sessionFixtures(in: "http"))
    func everyFixtureReadsAndWritesBackIdentically(path: String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let session = try Session(fixtureText: text)
        #expect(session.fixtureText == text)
        if session.transport == "http" {
            // A v0 listing over HTTP is one GET: the client sends a request but no pkt-lines.
            #expect(session.events.contains { if case .http(.client, _) = $0 { true } else { false } })
        } else {
            #expect(!session.bytes(from: .client).isEmpty)
        }
    }

    @Test func anyBytesSurviveTheTextFormExactly() throws {
        var generator = SystemRandomNumberGenerator()
        var awkward: [[UInt8]] = [
            Array(0...255), Array("004A".utf8) + Array(repeating: 0x41, count: 70), Array("0004".utf8),
            Array("0003".utf8), Array("0009abc".utf8), Array("zzzz".utf8), PktLine.text("\u{1F600} ü \"q\" \\").encoded,
            PktLine.data([0xc3]).encoded, PktLine.data([0xe2, 0x80, 0xa8]).encoded,
            PktLine.data([1] + Array("PACK".utf8) + (0..<300).map { _ in UInt8.random(in: 0...255, using: &generator) })
                .encoded,
        ]
        awkward.append((0..<5000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        var session = Session(transport: "git", service: "git-upload-pack", path: "/x", protocolVersion: .v2)
        for (index, bytes) in awkward.enumerated() { session.append(bytes, from: index % 2 == 0 ? .client : .server) }
        session.appendEnd(from: .server)
        let copy = try Session(fixtureText: session.fixtureText)
        #expect(copy == session)
    }

    @Test func packetsAreShownOneALineWithSpecialPacketsByName() {
        let bytes = try! PktLineEncoder.encode([
            .text("version 2"), .delimiter, .data([2] + Array("Counting\r".utf8)), .flush, .responseEnd,
        ])
        let lines = FixtureToken.tokens(for: bytes).map(\.line)
        #expect(lines == ["pkt \"version 2\\n\"", "delim", "pkt \"\\x02Counting\\r\"", "flush", "response-end"])
    }

    @Test func nonCanonicalLengthsStayRaw() {
        let upper = Array("000Ahello!".utf8)
        #expect(FixtureToken.tokens(for: upper) == [.raw(upper)])
        #expect(FixtureToken.tokens(for: upper).flatMap(\.bytes) == upper)
    }

    @Test func brokenFixturesAreRejectedWithTheLine() {
        #expect(throws: FixtureFormatError.self) { try Session(fixtureText: "not a fixture\n") }
        let text =
            "gitwire-session 1\ntransport git\nservice git-upload-pack\npath /x\nprotocol-version 2\n\nclient\n  pkt \"ok\"\n  bogus\n"
        let error = try? #require(throws: FixtureFormatError.self) { try Session(fixtureText: text) }
        #expect(error?.line == 9)
    }
}
