import GitWireCore
import Testing

/// Where a pkt-line stream's first flush ends, found from the length prefixes alone, in every
/// chunking (smart HTTP stops reading its discovery answer there).
@Suite struct PktLineFlushFinderTests {
    static let chunkSizes = [1, 2, 3, 4, 5, 7, 64, 65520, Int.max]

    /// How many bytes of `stream`, fed in pieces of `size`, the finder counts as the stream's.
    static func counted(_ stream: [UInt8], size: Int) -> Int {
        var finder = PktLineFlushFinder()
        var total = 0
        var offset = 0
        while offset < stream.count {
            let end = size >= stream.count - offset ? stream.count : offset + size
            let piece = Array(stream[offset..<end])
            let count = finder.count(in: piece)
            #expect(count == piece.count || finder.foundFlush)
            total += count
            offset = end
        }
        return total
    }

    @Test(arguments: chunkSizes)
    func stopsAfterTheFirstFlush(size: Int) {
        // Packets, a delimiter and a response end (which end nothing), a flush, then more.
        let advertisement = Array("000eversion 2\n0001000Cls-refs\n00020000".utf8)
        let after = Array("0000zzzz0009more".utf8) + [UInt8](repeating: 0, count: 3000)
        #expect(Self.counted(advertisement + after, size: size) == advertisement.count)
        #expect(Self.counted(advertisement, size: size) == advertisement.count)
    }

    /// A flush-looking "0000" inside a packet's payload is payload.
    @Test(arguments: chunkSizes)
    func payloadIsSkippedWhole(size: Int) {
        let stream = Array("000c00000000".utf8) + Array("0000".utf8)
        #expect(Self.counted(stream + Array("x".utf8), size: size) == stream.count)
    }

    /// What is no pkt-line stream is counted whole: its decoder says what is wrong with it.
    @Test(arguments: chunkSizes)
    func malformedLengthsPassEverything(size: Int) {
        for stream in ["zzzz0000rest", "00030000rest", "00040000rest"] {
            #expect(Self.counted(Array(stream.utf8), size: size) == stream.utf8.count, "\(stream)")
        }
    }
}
