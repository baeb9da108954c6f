import Foundation
import GitWire
import GitWireTestSupport
import Testing

@testable import GitWireReplay

@Suite("Replay fixture format")
struct ReplayFormatTests {
    @Test(
        arguments: sessionFixtures(in: "ls-remote") + sessionFixtures(in: "fetch") + sessionFixtures(in: "http")
            + sessionFixtures(in: "sha256/fetch") + sessionFixtures(in: "sha256/http"))
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

/// Fixture text cannot be forged by what a client or server chose (gitwire issue #11), and
/// recording is linear in the bytes recorded.
@Suite("Replay fixture format, hostile input")
struct ReplayFormatHostileTests {
    /// A request path with a line feed used to write `server` and `pkt` lines of its own into the
    /// fixture; now it is quoted and the fixture reads back as the session that was recorded.
    @Test(arguments: [
        "/repo.git\nserver\n  pkt \"forged\"", "/a\rb", "\"quoted\"", "/caf\u{e9}.git", "/tab\there", "/back\\slash",
        "/x\u{1b}]0;title\u{7}", "",
    ])
    func headerValuesRoundTripExactly(path: String) throws {
        var session = Session(
            transport: "git", service: "git-upload-pack", path: path, protocolVersion: .v0, host: "h\nst",
            command: "gitwire clone '\(path)'")
        session.append(PktLine.text("hello").encoded, from: .client)
        session.append(PktLine.flush.encoded, from: .server)
        let text = session.fixtureText
        let copy = try Session(fixtureText: text)
        #expect(copy == session)
        #expect(copy.bytes(from: .server) == PktLine.flush.encoded)
        // Every line is the header, a direction or an indented token: nothing forged.
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let headerEnd = try #require(lines.firstIndex(of: ""))
        #expect(lines[headerEnd...].filter { $0 == "server" }.count == 1)
        #expect(lines[..<headerEnd].count == 7)
    }

    @Test func plainHeaderValuesStayAsTheyWere() throws {
        let session = Session(transport: "git", service: "git-upload-pack", path: "/small.git", protocolVersion: .v2)
        #expect(session.fixtureText.contains("\npath /small.git\n"))
    }

    @Test func badlyQuotedHeaderValuesAreRejected() {
        let text = "gitwire-session 1\ntransport git\nservice git-upload-pack\npath \"/x\nprotocol-version 2\n\n"
        #expect(throws: FixtureFormatError.self) { try Session(fixtureText: text) }
    }

    /// 48 MiB from the server in 16 KiB reads, as record-proxy appends them: one event with the
    /// bytes exact. (Appending used to copy the event's bytes on every read: quadratic, 13 s of
    /// CPU for 48 MiB; `Tools/bench-record-proxy.sh` measures it.)
    @Test func manyChunksFromOneSideJoinIntoOneEvent() {
        var session = Session(transport: "git", service: "git-upload-pack", path: "/x", protocolVersion: .v0)
        let chunk = (0..<(16 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let count = 48 << 6
        for _ in 0..<count { session.append(chunk, from: .server) }
        #expect(session.events.count == 1)
        let bytes = session.bytes(from: .server)
        #expect(bytes.count == count * chunk.count)
        #expect(bytes.suffix(chunk.count).elementsEqual(chunk))
    }
}
