import Testing

@testable import GitWirePOSIX

/// zlib's own Adler-32 is off in ``Inflater`` (`cgw_inflate_init`), which checks each stream's
/// trailer with libdeflate's: every way of inflating must still refuse a stream whose trailer is
/// wrong, with zlib's error, and accept an intact one, however its input is cut.
@Suite struct InflaterTrailerTests {
    /// Content long enough for several 64 KiB pieces of output, compressible but not trivially.
    static let content: [UInt8] = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7 ^ $0 >> 9) }

    static func stream(damagingTrailerByte damaged: Int? = nil) throws -> [UInt8] {
        var stream = try Deflater().deflateWhole(content[...])
        if let damaged { stream[stream.count - 4 + damaged] ^= 0x10 }
        return stream
    }

    /// zlib's error for a stream whose Adler-32 does not match its content.
    static func isDataCheckError(_ error: any Error) -> Bool {
        guard let error = error as? ZlibError else { return false }
        return error.code == -3 && error.description == "zlib error -3: incorrect data check"
    }

    /// Inflates through ``Inflater/inflate(_:sink:)`` in pieces of `piece` bytes (one stream
    /// across calls, as the pack parser feeds it); returns the content and the bytes taken.
    static func inflateInPieces(_ stream: [UInt8], piece: Int) throws -> (content: [UInt8], consumed: Int) {
        let inflater = try Inflater()
        inflater.reset()
        var content: [UInt8] = []
        var consumed = 0
        var rest = stream[...]
        while !rest.isEmpty {
            let progress = try inflater.inflate(rest.prefix(piece)) { content += $0 }
            consumed += progress.consumed
            rest = rest.dropFirst(progress.consumed)
            if progress.finished || progress.consumed == 0 { break }
        }
        return (content, consumed)
    }

    @Test(arguments: [1, 3, 5, 1 << 20])
    func intactStreamsInflate(piece: Int) throws {
        let stream = try Self.stream()
        // Bytes after the stream are not taken.
        let (content, consumed) = try Self.inflateInPieces(stream + [1, 2, 3], piece: piece)
        #expect(content == Self.content)
        #expect(consumed == stream.count)
        let inflater = try Inflater()
        let whole = try inflater.inflateWhole(stream[...] + [9], size: Self.content.count)
        #expect(whole.bytes == Self.content && whole.consumed == stream.count)
        var pieces = (stream + [9]).chunked(piece)
        let fed = try inflater.inflateWhole(size: Self.content.count) { pieces.isEmpty ? nil : pieces.removeFirst() }
        #expect(fed.bytes == Self.content && fed.consumed == stream.count)
        #expect(try inflater.inflatePrefix(stream[...], count: Self.content.count + 10) == Self.content)
    }

    @Test(arguments: [0, 1, 2, 3], [1, 3, 5, 1 << 20])
    func aWrongTrailerFailsAsZlibFails(damaged: Int, piece: Int) throws {
        let stream = try Self.stream(damagingTrailerByte: damaged)
        #expect(throws: (any Error).self) { _ = try Self.inflateInPieces(stream, piece: piece) }
        do {
            _ = try Self.inflateInPieces(stream, piece: piece)
        } catch {
            #expect(Self.isDataCheckError(error), "\(error)")
        }
        let inflater = try Inflater()
        var pieces = stream.chunked(piece)
        for attempt in 0..<3 {
            do {
                switch attempt {
                case 0: _ = try inflater.inflateWhole(stream[...], size: Self.content.count)
                case 1:
                    _ = try inflater.inflateWhole(size: Self.content.count) {
                        pieces.isEmpty ? nil : pieces.removeFirst()
                    }
                default: _ = try inflater.inflatePrefix(stream[...], count: Self.content.count + 10)
                }
                Issue.record("way \(attempt) accepted a stream with a wrong Adler-32")
            } catch {
                #expect(Self.isDataCheckError(error), "way \(attempt): \(error)")
            }
        }
    }

    /// An empty stream has the trailer 1 (Adler-32 of nothing); a wrong one is refused too.
    @Test func emptyContent() throws {
        var stream = try Deflater().deflateWhole([][...])
        let inflater = try Inflater()
        #expect(try inflater.inflateWhole(stream[...], size: 0).bytes.isEmpty)
        stream[stream.count - 1] ^= 1
        #expect(throws: (any Error).self) { _ = try inflater.inflateWhole(stream[...], size: 0) }
    }
}

extension Array where Element == UInt8 {
    /// The array in slices of `size` bytes (the last shorter).
    fileprivate func chunked(_ size: Int) -> [ArraySlice<UInt8>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
