import GitWire
import GitWireTestSupport
import Testing

/// Side-band frames and remote errors.
@Suite("side-band frames and remote errors")
struct SideBandTests {
    /// A real protocol v2 fetch response: after the `packfile` line, band 2 carries git's progress
    /// and band 1 a whole pack that git accepts.
    @Test func realFetchResponseSplitsIntoBands() throws {
        let packets = ServerCaptures.referencePackets(try ServerCaptures.fetchResponse("small.git"))
        let start = try #require(packets.firstIndex(of: .text("packfile")))
        var pack: [UInt8] = []
        var progress: [UInt8] = []
        for packet in packets[(start + 1)...] {
            guard let payload = packet.payload else {
                #expect(packet == .flush)
                continue
            }
            switch try SideBandFrame(payload: payload) {
            case .data(let bytes): pack += bytes
            case .progress(let bytes): progress += bytes
            case .error(let bytes): Issue.record("unexpected error band: \(escapedForDisplay(bytes))")
            }
        }
        #expect(pack.starts(with: Array("PACK".utf8)))
        #expect(String(decoding: progress, as: UTF8.self).contains("Total "))
        let directory = try TemporaryDirectory()
        try git(["init", "-q", "--bare", directory.path])
        let indexed = try git(["index-pack", "--stdin"], in: directory.path, input: pack)
        #expect(indexed.text == "pack\t\(ObjectID(bytes: pack.suffix(20), format: .sha1)!.hex)\n")
    }

    @Test func bandsOneTwoAndThree() throws {
        #expect(try SideBandFrame(payload: [1, 0x50, 0x41]) == .data([0x50, 0x41][...]))
        #expect(try SideBandFrame(payload: [2] + Array("Counting\r".utf8)) == .progress(Array("Counting\r".utf8)[...]))
        #expect(try SideBandFrame(payload: [3] + Array("boom\n".utf8)) == .error(Array("boom\n".utf8)[...]))
        #expect(try SideBandFrame(payload: [1]) == .data([][...]))
    }

    @Test(arguments: [0, 4, 5, 0x32, 0xff] as [UInt8])
    func otherBandsAreProtocolErrors(band: UInt8) throws {
        let error = try #require(throws: ProtocolError.self) { try SideBandFrame(payload: [band, 0x61]) }
        #expect(error.description == "protocol error: bad band #\(band)")
    }

    @Test func anEmptyPacketHasNoBand() throws {
        #expect(throws: ProtocolError.self) { try SideBandFrame(payload: []) }
    }

    @Test func errPacketsAreRemoteErrors() throws {
        let error = try #require(RemoteError.fromErrorPacket(.text("ERR access denied: /x.git")))
        #expect(error.message == "access denied: /x.git")
        #expect(error.description == "remote error: access denied: /x.git")
        #expect(RemoteError.fromErrorPacket(.data(Array("ERR no newline".utf8)))?.message == "no newline")
        #expect(RemoteError.fromErrorPacket(.data(Array("ERR ".utf8)))?.message == "")
        #expect(RemoteError.fromErrorPacket(.data(Array("ERR two\n\n".utf8)))?.message == "two")
        for notAnError: PktLine in [.text("ERR"), .text("ERRno space"), .text("err lowercase"), .flush, .delimiter] {
            #expect(RemoteError.fromErrorPacket(notAnError) == nil, "\(notAnError)")
        }
        #expect(RemoteError(message: Array("band 3 text\n".utf8)).description == "remote error: band 3 text")
    }

    /// `git daemon --informative-errors` answers a request for a missing repository with an ERR
    /// packet: gitwire reports it as git does.
    @Test func realDaemonErrPacket() throws {
        let directory = try TemporaryDirectory()
        let daemon = try GitDaemon(basePath: directory.path, lifetime: 60, extraArguments: ["--informative-errors"])
        defer { daemon.stop() }
        let url = daemon.url("missing.git")
        let remote = try Remote(url, timeout: .seconds(20))
        let error = try #require(throws: RemoteError.self) { try remote.lsRemoteBlocking() }
        #expect(error.message.contains("missing.git"))
        let expected = try git(["ls-remote", url], check: false)
        let actual = try gitwire(["ls-remote", url])
        #expect(expected.status == 128)
        #expect(actual.status == expected.status)
        #expect(actual.errorText == expected.errorText)
        #expect(actual.errorText == "fatal: \(error)\n")
    }
}
