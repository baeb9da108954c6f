import GitWire
import GitWireTestSupport
import Testing

/// Encoding pkt-lines: git's exact bytes, round trips, and the payload limit.
@Suite("pkt-line encoder")
struct PktLineEncoderTests {
    /// Re-encoding what a real server sent gives back its bytes exactly (lowercase length digits,
    /// special packets), for each kind of capture.
    @Test func reencodingRealServerBytesGivesThemBack() throws {
        let captures = [
            try ServerCaptures.v0Advertisement("small.git"), try ServerCaptures.v2Capabilities("small.git"),
            try ServerCaptures.lsRefsResponse("big.git"), try ServerCaptures.fetchResponse("small.git"),
        ]
        for bytes in captures {
            var decoder = PktLineDecoder()
            decoder.append(bytes)
            var packets: [PktLine] = []
            while let packet = try decoder.next() { packets.append(packet) }
            #expect(try PktLineEncoder.encode(packets) == bytes)
            var oneByOne: [UInt8] = []
            for packet in packets { packet.encode(into: &oneByOne) }
            #expect(oneByOne == bytes)
        }
    }

    /// A request gitwire encodes is one real `git upload-pack` understands: it answers ls-refs
    /// with the repository's refs.
    @Test func gitUnderstandsAnEncodedRequest() throws {
        let request: [PktLine] = [.text("command=ls-refs"), .delimiter, .text("ref-prefix refs/heads/"), .flush]
        let response = try ServerCaptures.v2Response("small.git", to: request)
        let names = ServerCaptures.referencePackets(response).compactMap { $0.text?.split(separator: " ").last }
        let heads = try gitText(
            ["for-each-ref", "--format=%(refname)", "refs/heads/"], in: TestRepositories.shared.path("small.git"))
        #expect(names.map(String.init) == heads.split(separator: "\n").map(String.init))
    }

    @Test(arguments: [1, 2, 15, 16, 251, 252, 4091, 4092, 65515, PktLine.maxPayload])
    func roundTrip(payloadSize: Int) throws {
        let payload = (0..<payloadSize).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let lines: [PktLine] = [.data(payload), .delimiter, .data(payload.reversed()), .responseEnd, .flush]
        let bytes = try PktLineEncoder.encode(lines)
        #expect(bytes.count == 2 * (payloadSize + 4) + 12)
        let length = String(decoding: bytes.prefix(4), as: UTF8.self)
        #expect(Int(length, radix: 16) == payloadSize + 4)
        #expect(length == length.lowercased())
        var decoder = PktLineDecoder()
        decoder.append(bytes)
        var decoded: [PktLine] = []
        while let line = try decoder.next() { decoded.append(line) }
        #expect(decoded == lines)
    }

    @Test func payloadsOverTheLimitAreRefused() throws {
        let tooLong = PktLine.data([UInt8](repeating: 0x61, count: PktLine.maxPayload + 1))
        #expect(throws: PktLineError.payloadTooLong(PktLine.maxPayload + 1)) {
            try PktLineEncoder.encode([.flush, tooLong])
        }
        #expect(PktLine.maxLength == 65520)
        #expect(PktLine.maxPayload == 65516)
        #expect("\(PktLineError.payloadTooLong(65517))" == "pkt-line payload of 65517 bytes exceeds 65516")
    }

    @Test func textLinesEndWithANewline() {
        #expect(PktLine.text("command=ls-refs") == .data(Array("command=ls-refs\n".utf8)))
        #expect(PktLine.text("peel").text == "peel")
        #expect(PktLine.flush.encoded == Array("0000".utf8))
        #expect(PktLine.delimiter.encoded == Array("0001".utf8))
        #expect(PktLine.responseEnd.encoded == Array("0002".utf8))
        #expect(PktLine.flush.payload == nil)
        #expect(PktLine.delimiter.text == nil)
    }
}
