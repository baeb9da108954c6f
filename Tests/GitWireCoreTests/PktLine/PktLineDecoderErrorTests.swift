import GitWireCore
import Testing

/// Malformed pkt-line input: what the decoder accepts and what it rejects, with which error.
@Suite("pkt-line decoder errors")
struct PktLineDecoderErrorTests {
    /// Decodes `text` whole; the packets, or the error.
    func decode(_ bytes: [UInt8]) throws -> [PktLine] {
        var decoder = PktLineDecoder()
        decoder.append(bytes)
        var packets: [PktLine] = []
        while let packet = try decoder.next() { packets.append(packet) }
        try decoder.checkAtEnd()
        return packets
    }

    @Test(arguments: [
        ("00zz", "00zz"), ("zzzz", "zzzz"), ("0x12", "0x12"), ("00\n\u{1}", "00\\n\\x01"), ("-001", "-001"),
        (" 001", " 001"), ("00\\0", "00\\\\0"),
    ])
    func nonHexLengthDigitsAreShownEscaped(input: String, shown: String) throws {
        let bytes = Array(input.utf8)
        let error = try #require(throws: PktLineError.self) { try decode(bytes + Array("more".utf8)) }
        #expect(error == .badLengthCharacters(bytes))
        #expect(error.description == "protocol error: bad line length character: \(shown)")
    }

    @Test func nonPrintableLengthBytesAreEscaped() throws {
        let bytes: [UInt8] = [0x00, 0xff, 0x7f, 0x30]
        let error = try #require(throws: PktLineError.self) { try decode(bytes) }
        #expect(error.description == "protocol error: bad line length character: \\0\\xff\\x7f0")
    }

    @Test func reservedAndEmptyLengthsAreRejected() throws {
        #expect(throws: PktLineError.badLength(3)) { try decode(Array("0003".utf8)) }
        #expect(throws: PktLineError.badLength(4)) { try decode(Array("0004".utf8)) }
        #expect("\(PktLineError.badLength(3))".hasPrefix("protocol error: bad line length 3"))
        #expect("\(PktLineError.badLength(4))".hasPrefix("protocol error: bad line length 4"))
    }

    @Test func lengthsAboveTheMaximumAreRejectedBeforeTheirPayloadArrives() throws {
        #expect(throws: PktLineError.tooLong(65521)) { try decode(Array("fff1".utf8)) }
        #expect(throws: PktLineError.tooLong(0xffff)) { try decode(Array("ffff".utf8)) }
        #expect("\(PktLineError.tooLong(65521))".hasPrefix("protocol error: bad line length 65521"))
    }

    @Test func theLargestPacketIsAccepted() throws {
        let payload = (0..<PktLine.maxPayload).map { UInt8(truncatingIfNeeded: $0) }
        #expect(try decode(Array("fff0".utf8) + payload) == [.data(payload)])
    }

    @Test func uppercaseHexIsAccepted() throws {
        #expect(try decode(Array("000Ahello\n000A".utf8) + Array("WORLD\n".utf8)) == [.text("hello"), .text("WORLD")])
        #expect(try decode(Array("00FF".utf8) + [UInt8](repeating: 0x61, count: 251)).count == 1)
    }

    @Test func specialPackets() throws {
        #expect(try decode(Array("0000000100020000".utf8)) == [.flush, .delimiter, .responseEnd, .flush])
        #expect(try decode(Array("0005a0000".utf8)) == [.data([0x61]), .flush])
    }

    @Test func endInsideThePayloadIsReportedAtTheEnd() throws {
        var decoder = PktLineDecoder()
        decoder.append(Array("0009abc".utf8))
        #expect(try decoder.next() == nil)
        #expect(decoder.bufferedByteCount == 7)
        let error = try #require(throws: PktLineError.self) { try decoder.checkAtEnd() }
        #expect(error == .truncated(received: 7, expected: 9))
        #expect(error.description == "protocol error: stream ended inside a pkt-line after 7 of 9 bytes")
        decoder.append(Array("de".utf8))
        #expect(try decoder.next() == .data(Array("abcde".utf8)))
        try decoder.checkAtEnd()
    }

    @Test func endInsideTheLengthIsReportedAtTheEnd() throws {
        var decoder = PktLineDecoder()
        decoder.append(Array("0000".utf8) + Array("00".utf8))
        #expect(try decoder.next() == .flush)
        #expect(try decoder.next() == nil)
        #expect(throws: PktLineError.truncated(received: 2, expected: 4)) { try decoder.checkAtEnd() }
    }

    @Test func anEmptyOrFinishedInputIsAProperEnd() throws {
        try PktLineDecoder().checkAtEnd()
        #expect(try decode([]) == [])
        #expect(try decode(Array("0000".utf8)) == [.flush])
    }

    @Test func rawBytesAfterPacketsAreHandedOverUntouched() throws {
        var decoder = PktLineDecoder()
        let raw: [UInt8] = Array("PACK".utf8) + [0, 0, 0, 2, 0xff, 0x00]
        decoder.append(Array("0008NAK\n".utf8) + raw)
        #expect(try decoder.next() == .text("NAK"))
        #expect(decoder.takeRawBytes(maxCount: 4) == Array("PACK".utf8))
        #expect(decoder.takeRawBytes() == Array(raw.dropFirst(4)))
        #expect(decoder.bufferedByteCount == 0)
        try decoder.checkAtEnd()
    }
}
