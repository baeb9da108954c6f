import GitWire
import GitWireTestSupport
import Testing

/// What a listing holds is what was asked for, not what a server chooses to send (issue #19):
/// refs outside the `ref-prefix`es asked for are not kept, an endless capability advertisement
/// is an error rather than an endless list, and a warning repeated on every line is kept a
/// bounded number of times. (Refs themselves have no limit, as in git: a listing is what was
/// asked for.)
@Suite("advertisement bounds")
struct AdvertisementBoundsTests {
    static let oid = "1234567890abcdef1234567890abcdef12345678"

    /// A v2 server that ignores `ref-prefix`: git's `ls-remote --heads` prints only branches, and
    /// so does gitwire's; the library's listing holds only what it asked for.
    @Test func refsOutsideTheAskedPrefixesAreNotKept() throws {
        let capabilities = packets(of: try ServerCaptures.v2Capabilities("small.git"))
        var answer: [PktLine] = []
        for index in 0..<50 {
            answer += [
                .text("\(Self.oid) refs/changes/\(index)/1"), .text("\(Self.oid) refs/heads/b\(index)"),
                .text("\(Self.oid) refs/tags/t\(index)"),
            ]
        }
        answer.append(.flush)
        let script: [FakeGitServer.Step] = [.send(bytes(of: capabilities)), .receiveCommand, .send(bytes(of: answer))]
        let server = try FakeGitServer(script, connections: 3)
        let expected = try git(["-c", "protocol.version=2", "ls-remote", "--heads", server.url()])
        let ours = try gitwire(["ls-remote", "--protocol-version=2", "--heads", "--timeout=30", server.url()])
        #expect(ours.status == 0, "\(ours.errorText)")
        #expect(ours.text == expected.text)
        #expect(expected.text.split(separator: "\n").count == 50)

        let remote = try Remote(server.url(), timeout: .seconds(30))
        var emitted: [String] = []
        let listing = try remote.runBlocking(
            LsRemoteExchange(options: LsRemoteOptions(refPrefixes: ["refs/heads/"])), protocolVersion: .v2,
            traceIdentity: "test"
        ) { emitted.append($0.name) }
        #expect(listing.refs.map(\.name) == (0..<50).map { "refs/heads/b\($0)" })
        #expect(emitted == listing.refs.map(\.name))
        _ = server.finish()
    }

    /// A capability advertisement that does not end (here 1,001 lines, then the rest) is an
    /// error after 1,000 lines.
    @Test func anEndlessCapabilityAdvertisementIsRefused() throws {
        var lines: [PktLine] = [.text("version 2"), .text("ls-refs=unborn")]
        for index in 0..<1000 { lines.append(.text("x-filler-\(index)=\(String(repeating: "v", count: 40))")) }
        lines.append(.flush)
        let server = try FakeGitServer([.send(bytes(of: lines))], connections: 1)
        let ours = try gitwire(["ls-remote", "--protocol-version=2", "--timeout=30", server.url()])
        #expect(ours.status == 128)
        #expect(ours.errorText == "fatal: protocol error: capability advertisement of more than 1000 lines\n")
        _ = server.finish()
    }

    /// A v0 server putting capabilities on every line: git warns once per line; a listing keeps
    /// the first 100 warnings (gitwire prints those), not one per line however many come.
    @Test func repeatedWarningsAreKeptABoundedNumberOfTimes() throws {
        var lines: [PktLine] = [.text("\(Self.oid) refs/heads/main\0multi_ack")]
        for index in 0..<300 { lines.append(.text("\(Self.oid) refs/heads/b\(index)\0multi_ack")) }
        lines.append(.flush)
        let server = try FakeGitServer([.send(bytes(of: lines))], connections: 2)
        let expected = try git(["-c", "protocol.version=0", "ls-remote", server.url()])
        let ours = try gitwire(["ls-remote", "--protocol-version=0", "--timeout=30", server.url()])
        #expect(ours.status == 0, "\(ours.errorText)")
        #expect(ours.text == expected.text)
        let warning = "warning: ignoring capabilities after first line ''\n"
        #expect(expected.errorText == String(repeating: warning, count: 300))
        #expect(ours.errorText == String(repeating: warning, count: 100))
        _ = server.finish()
    }
}
