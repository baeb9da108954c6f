import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// Objects of 4 GiB and more (gitwire issue #11): sizes are 64-bit all the way, through the
/// stream parser, the delta resolver, zlib and the pack reader. The pack is a blob of 2^32 zeros
/// and an OFS_DELTA on it, as in the issue, but the blob's zlib stream is made of stored blocks:
/// zlib inflates those at memory speed, where the 4 MB pack of maximally compressed
/// zeros takes zlib 13 s per pass on this machine (and `git index-pack` 80 s, hashing with
/// SHA-1DC). So the test writes a 4 GiB pack to a temporary directory and holds the 4 GiB base in
/// memory once, to resolve the delta (the pack reader inflates entries through the same code);
/// it takes about 50 s in a debug build, mostly writing, hashing and inflating 4 GiB.
/// `Tools/check-4gib-pack.sh` indexes the issue's own pack with gitwire and git and compares
/// the indexes (they are the same).
@Suite("objects over 4 GiB")
struct LargeObjectTests {
    static let blobSize = UInt64(1) << 32
    /// Zeros per stored block: 2^32 of them make 2^17 blocks.
    static let blockSize = 1 << 15

    /// Writes the pack to `path`, hashing it as it goes; returns the offset of the delta entry.
    static func writePack(to path: String) throws -> Int {
        guard FileManager.default.createFile(atPath: path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var hash = SHA1()
        var written = 0
        func write(_ bytes: [UInt8]) throws {
            hash.update(bytes[...])
            try handle.write(contentsOf: bytes)
            written += bytes.count
        }
        try write(
            PackHeader(objectCount: 2).bytes + PackEntryHeader.encode(type: .blob, size: blobSize) + [0x78, 0x01])
        // A stored block: BFINAL and BTYPE 00 in one byte, then LEN and its complement, little-endian.
        func block(final: Bool) -> [UInt8] {
            let length = UInt16(blockSize)
            return [
                final ? 1 : 0, UInt8(length & 0xff), UInt8(length >> 8), UInt8(~length & 0xff), UInt8(~length >> 8),
            ]
                + [UInt8](repeating: 0, count: blockSize)
        }
        let blocksPerWrite = 32
        let blocks = Int(blobSize) / blockSize
        let chunk = (0..<blocksPerWrite).flatMap { _ in block(final: false) }
        for _ in 0..<(blocks / blocksPerWrite - 1) { try write(chunk) }
        try write((0..<(blocksPerWrite - 1)).flatMap { _ in block(final: false) } + block(final: true))
        // Adler-32 of n zeros: a stays 1, b adds 1 per byte.
        let adler = UInt32(blobSize % 65521) << 16 | 1
        try write([UInt8(adler >> 24), UInt8(adler >> 16 & 0xff), UInt8(adler >> 8 & 0xff), UInt8(adler & 0xff)])
        let deltaOffset = written
        // Keep the base's last five bytes (a copy from offset 2^32 - 5), then add "hello".
        let delta =
            makeDelta(baseSize: Int(blobSize), resultSize: 10, [0x80 | 0x0f | 0x10, 0xfb, 0xff, 0xff, 0xff, 5])
            + insertInstruction(Array("hello".utf8))
        let distance = deltaOffset - PackHeader.length
        var encodedDistance = [UInt8(distance & 127)]
        var rest = distance >> 7
        while rest != 0 {
            rest -= 1
            encodedDistance.insert(0x80 | UInt8(rest & 127), at: 0)
            rest >>= 7
        }
        try write(
            [0xe0 | UInt8(delta.count & 15), UInt8(delta.count >> 4)] + encodedDistance
                + Deflater().deflateWhole(delta[...]))
        try handle.write(contentsOf: hash.finish().bytes)
        return deltaOffset
    }

    @Test func aBlobOf4GiBAndADeltaOnIt() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-4gib")
        let path = directory.appending("big.pack")
        let deltaOffset = try Self.writePack(to: path)

        var hash = SHA1()
        hash.update(Array("blob \(Self.blobSize)\0".utf8)[...])
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        for _ in 0..<(Self.blobSize >> 20) { hash.update(zeros[...]) }
        let blob = try hash.finish()
        let result = [0, 0, 0, 0, 0] + Array("hello".utf8)
        let delta = try ObjectID.of(type: .blob, data: result[...], format: .sha1)

        let indexed = try PackIndexer.indexPack(at: path, options: PackIndexOptions(threads: 2))
        #expect(indexed.objectCount == 2)
        #expect(indexed.resolution.deltasApplied == 1)
        let index = try PackIndex(path: directory.appending("big.idx"), format: .sha1)
        #expect(index.offset(of: blob) == 12)
        #expect(index.offset(of: delta) == UInt64(deltaOffset))
    }
}
