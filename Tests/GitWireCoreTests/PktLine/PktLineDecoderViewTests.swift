import GitWireCore
import GitWireCoreTestSupport
import Testing

/// Views handed out by ``PktLineDecoder/nextView()`` stay what they were while the decoder goes
/// on: the decoder's own buffer for packets split between inputs is reused once read, but never
/// while a view of it is alive.
@Suite("pkt-line decoder views")
struct PktLineDecoderViewTests {
    /// Packets of many lengths (the longest included), cut into inputs of `size` bytes so that
    /// most packets span two or more inputs.
    static func stream() -> (bytes: [UInt8], payloads: [[UInt8]]) {
        var generator = SeededGenerator(seed: 0x5eed)
        var payloads: [[UInt8]] = []
        var bytes: [UInt8] = []
        for index in 0..<200 {
            let length = index % 50 == 0 ? PktLine.maxPayload : Int(generator.next() % 3000) + 1
            let payload = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            payloads.append(payload)
            bytes += PktLine.data(payload).encoded
        }
        return (bytes, payloads)
    }

    /// Every view is kept to the end and compared with the payload it should be.
    @Test(arguments: [7, 4096, 65521, 100_000])
    func viewsKeptAcrossInputsKeepTheirBytes(size: Int) throws {
        let (bytes, payloads) = Self.stream()
        var decoder = PktLineDecoder()
        var kept: [ArraySlice<UInt8>] = []
        var start = 0
        while start < bytes.count {
            decoder.append(Array(bytes[start..<min(start + size, bytes.count)]))
            start += size
            while let view = try decoder.nextView() {
                guard case .data(let payload) = view else {
                    Issue.record("not a data line")
                    return
                }
                kept.append(payload)
            }
        }
        try decoder.checkAtEnd()
        #expect(kept.count == payloads.count)
        #expect(kept.map { Array($0) } == payloads)
    }
}
