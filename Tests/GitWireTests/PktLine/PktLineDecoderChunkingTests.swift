import GitWire
import GitWireTestSupport
import Testing

/// The decoder gives the same packets however real server bytes are cut into reads.
@Suite("pkt-line decoder chunking")
struct PktLineDecoderChunkingTests {
    /// Small captures: a v0 advertisement, a v2 capability advertisement, an ls-refs response.
    static let smallCaptures = Result {
        [
            "v0 advertisement": try ServerCaptures.v0Advertisement("small.git"),
            "v2 capabilities": try ServerCaptures.v2Capabilities("small.git"),
            "ls-refs response": try ServerCaptures.lsRefsResponse("small.git"),
        ]
    }

    /// The v0 advertisement of the big repository: thousands of refs.
    static let bigAdvertisement = Result { try ServerCaptures.v0Advertisement("big.git") }

    /// Decodes `bytes` fed in the given ranges, checking that nothing is left over.
    func decode(_ bytes: [UInt8], in ranges: [Range<Int>]) throws -> [PktLine] {
        var decoder = PktLineDecoder()
        var packets: [PktLine] = []
        for range in ranges {
            decoder.append(bytes[range])
            while let packet = try decoder.next() { packets.append(packet) }
        }
        try decoder.checkAtEnd()
        #expect(decoder.bufferedByteCount == 0)
        return packets
    }

    func chunks(of count: Int, size: Int) -> [Range<Int>] {
        stride(from: 0, to: count, by: size).map { $0..<min($0 + size, count) }
    }

    @Test func capturesAreWhatTheyShouldBe() throws {
        let captures = try Self.smallCaptures.get()
        let v0 = ServerCaptures.referencePackets(try #require(captures["v0 advertisement"]))
        #expect(v0.last == .flush)
        #expect(v0.first?.payload?.contains(0) == true, "capabilities after a NUL on the first line")
        let v2 = ServerCaptures.referencePackets(try #require(captures["v2 capabilities"]))
        #expect(v2.first == .text("version 2"))
        #expect(v2.contains { $0.text?.hasPrefix("ls-refs") == true })
        let lsRefs = ServerCaptures.referencePackets(try #require(captures["ls-refs response"]))
        #expect(lsRefs.count > 3)
        #expect(lsRefs.last == .flush)
        let big = try Self.bigAdvertisement.get()
        #expect(big.count > 200_000)
        #expect(ServerCaptures.referencePackets(big).count > 3000)
    }

    @Test(arguments: ["v0 advertisement", "v2 capabilities", "ls-refs response"])
    func everySplitPointOfASmallCapture(name: String) throws {
        let bytes = try #require(try Self.smallCaptures.get()[name])
        let expected = ServerCaptures.referencePackets(bytes)
        #expect(try decode(bytes, in: [0..<bytes.count]) == expected)
        for split in 0...bytes.count {
            let packets = try decode(bytes, in: [0..<split, split..<bytes.count])
            #expect(packets == expected, "split at \(split)")
            if packets != expected { break }
        }
    }

    @Test(arguments: ["v0 advertisement", "v2 capabilities", "ls-refs response"])
    func oneByteAtATimeOfASmallCapture(name: String) throws {
        let bytes = try #require(try Self.smallCaptures.get()[name])
        #expect(try decode(bytes, in: chunks(of: bytes.count, size: 1)) == ServerCaptures.referencePackets(bytes))
    }

    @Test(arguments: [1, 2, 3, 4, 5, 7, 64, 65520, Int.max])
    func bigAdvertisementInChunksOf(size: Int) throws {
        let bytes = try Self.bigAdvertisement.get()
        let packets = try decode(bytes, in: chunks(of: bytes.count, size: size))
        #expect(packets == ServerCaptures.referencePackets(bytes))
    }

    /// Each data packet of the v0 advertisement is a line `git ls-remote` prints (the first one
    /// without its capabilities), with a tab for the space.
    @Test func bigAdvertisementPacketsAreTheRefsGitLists() throws {
        let repository = TestRepositories.shared.path("big.git")
        let listed = try git(["-c", "protocol.version=0", "ls-remote", repository]).text
        let packets = try decode(try Self.bigAdvertisement.get(), in: [0..<(try Self.bigAdvertisement.get().count)])
        var lines = ""
        for packet in packets {
            guard var payload = packet.payload else { continue }
            if let nul = payload.firstIndex(of: 0) { payload = Array(payload[..<nul]) + [0x0a] }
            if let space = payload.firstIndex(of: 0x20) { payload[space] = 0x09 }
            lines += String(decoding: payload, as: UTF8.self)
        }
        #expect(lines == listed)
        #expect(packets.last == .flush)
    }
}
