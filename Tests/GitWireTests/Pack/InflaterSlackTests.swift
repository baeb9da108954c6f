import Testing

@testable import GitWirePOSIX

/// Both inflaters give their decoder room past the size a stream must inflate to
/// (``Inflater/outputSlack``, so that the decoders' fast loops run to the end), ``Inflater``
/// calls zlib with `Z_FINISH`, and ``WholeInflater`` keeps a second libdeflate decompressor for
/// streams that open with a fixed-Huffman block. None of it may change what is accepted: a stream
/// that inflates to even one byte more or less than its size is refused, wherever in the room its
/// end falls, and streams of both kinds, one after the other, inflate to their content.
@Suite struct InflaterSlackTests {
    /// Content of `count` bytes, compressible but not trivially.
    static func content(_ count: Int, seed: Int = 0) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: ($0 &+ seed) &* 7 ^ ($0 >> 5) &* 3) }
    }

    /// The sizes a stream's content is claimed to have, around its real size `count`: every way
    /// the real end can fall against the claimed size and the room past it.
    static func claims(around count: Int) -> [Int] {
        let offsets = [-300, -2, -1, 0, 1, 2, 257, 258, 299, 300, 319, 320, 321, 1000]
        return offsets.map { count - $0 }.filter { $0 >= 0 }
    }

    @Test(arguments: [0, 1, 100, 700, 5000, 70_000])
    func onlyTheTrueSizeIsAccepted(count: Int) throws {
        let content = Self.content(count)
        let stream = try Deflater().deflateWhole(content[...])
        let inflater = try Inflater()
        let whole = try WholeInflater()
        for claim in Self.claims(around: count) {
            let exact = claim == count
            // zlib, whole and fed in pieces.
            let read = try? inflater.inflateWhole(stream[...] + [7, 7], size: claim)
            #expect((read?.bytes == content && read?.consumed == stream.count) == exact, "zlib, claim \(claim)")
            #expect((read != nil) == exact, "zlib, claim \(claim)")
            var pieces = stream.pieces(of: 3)
            let fed = try? inflater.inflateWhole(size: claim) { pieces.isEmpty ? nil : pieces.removeFirst() }
            #expect((fed?.bytes == content) == exact && (fed != nil) == exact, "zlib in pieces, claim \(claim)")
            // libdeflate: the three ways in.
            let inflated = whole.inflate(stream[...] + [7, 7], size: claim)
            #expect((inflated?.bytes == content && inflated?.consumed == stream.count) == exact, "claim \(claim)")
            #expect((inflated != nil) == exact, "libdeflate, claim \(claim)")
            #expect((whole.streamLength(stream[...], size: claim) == stream.count) == exact, "claim \(claim)")
            #expect((whole.streamLength(stream[...], size: claim) != nil) == exact, "claim \(claim)")
            let reused = whole.inflateReusingBuffer(stream[...], size: claim)
            #expect((reused.map { Array($0.bytes) } == content) == exact && (reused != nil) == exact)
        }
    }

    /// Whether the first deflate block of the zlib stream is a fixed-Huffman one (BTYPE 01).
    static func opensWithFixedBlock(_ stream: [UInt8]) -> Bool { stream.count > 2 && stream[2] & 0b110 == 0b010 }

    @Test func fixedAndDynamicStreamsTakeTurns() throws {
        // Short content deflates to a fixed-Huffman block, longer text to a dynamic one.
        let short = Array("tree 100644 README\n".utf8)
        let long = (0..<400).flatMap { Array("line \($0 % 37) of a file, some words repeated\n".utf8) }
        let contents = [short, long, short, long, long, short, short, long]
        let streams = try contents.map { try Deflater().deflateWhole($0[...]) }
        #expect(Self.opensWithFixedBlock(streams[0]) && !Self.opensWithFixedBlock(streams[1]))
        let whole = try WholeInflater()
        let inflater = try Inflater()
        for _ in 0..<2 {
            for (stream, content) in zip(streams, contents) {
                #expect(whole.inflate(stream[...], size: content.count)?.bytes == content)
                #expect(whole.inflateReusingBuffer(stream[...], size: content.count).map { Array($0.bytes) } == content)
                #expect(whole.streamLength(stream[...] + [1], size: content.count) == stream.count)
                #expect(try inflater.inflateWhole(stream[...], size: content.count).bytes == content)
                inflater.reset()
                var out: [UInt8] = []
                let progress = try inflater.inflate(stream[...] + [1]) { out += $0 }
                #expect(out == content && progress.finished && progress.consumed == stream.count)
            }
        }
    }

    /// A stream that does not end within one call (its input or its output cut short) goes on
    /// with the next call as it did with `Z_NO_FLUSH`: zlib keeps its window then.
    @Test(arguments: [1, 7, 4096, 65_535])
    func streamsAcrossCallsKeepTheirWindow(piece: Int) throws {
        let content = Self.content(300_000, seed: 5) + Self.content(300_000, seed: 5)
        let stream = try Deflater().deflateWhole(content[...])
        let inflater = try Inflater()
        inflater.reset()
        var out: [UInt8] = []
        var rest = stream[...]
        while !rest.isEmpty {
            let progress = try inflater.inflate(rest.prefix(piece)) { out += $0 }
            rest = rest.dropFirst(progress.consumed)
            if progress.finished { break }
            guard progress.consumed > 0 else {
                Issue.record("no progress")
                break
            }
        }
        #expect(out == content)
        #expect(try inflater.inflatePrefix(stream[...], count: 100_000) == Array(content.prefix(100_000)))
    }
}

extension [UInt8] {
    /// The array in slices of `size` bytes (the last one shorter).
    fileprivate func pieces(of size: Int) -> [ArraySlice<UInt8>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
