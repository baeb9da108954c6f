import GitWire
import GitWireFuzzTargets
import GitWireTestSupport
import Testing

/// Broken packs are rejected with an error that says what and where, by both ways of indexing,
/// and leave nothing behind. Git rejects each of them too.
@Suite struct PackCorruptionTests {
    /// A small real pack with deltas, and its entry offsets in pack order.
    static let sample: (pack: [UInt8], offsets: [UInt64]) = {
        let pack = try! FixtureRepository.shared.pack(["--delta-base-offset"], revisions: ["v40"])
        let directory = try! TemporaryDirectory()
        _ = try! gitIndex(of: pack, in: directory)
        let index = try! PackIndex(path: directory.appending("git.idx"), format: .sha1)
        return (pack, (0..<index.count).map(index.offset(at:)).sorted())
    }()

    static var count: UInt32 { UInt32(sample.offsets.count) }

    /// Checks that `pack` is rejected with an error whose reason passes `check` and whose offset
    /// is `offset` (when given), that no index or temporary file is left, and that git rejects it.
    func expectRejected(
        _ pack: [UInt8], offset: UInt64? = nil, gitArguments: [String] = [],
        sourceLocation: SourceLocation = #_sourceLocation, _ check: (PackError.Reason) -> Bool
    ) throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("broken.pack")
        try writeFile(path, pack)
        let fromFile = #expect(throws: PackError.self, sourceLocation: sourceLocation) {
            try PackIndexer.indexPack(at: path, options: PackIndexOptions(threads: 2))
        }
        let streamed = #expect(throws: PackError.self, sourceLocation: sourceLocation) {
            let indexer = try PackIndexer(destination: .file(directory.appending("streamed.pack")))
            var start = 0
            while start < pack.count {
                try indexer.append(pack[start..<min(start + 97, pack.count)])
                start += 97
            }
            _ = try indexer.finish()
        }
        for error in [fromFile, streamed] {
            #expect(
                error.map { check($0.reason) } == true, "unexpected \(String(describing: error))",
                sourceLocation: sourceLocation)
            if let offset { #expect(error?.offset == offset, sourceLocation: sourceLocation) }
        }
        #expect(fromFile == streamed, sourceLocation: sourceLocation)
        #expect(try fileNames(in: directory) == ["broken.pack"], sourceLocation: sourceLocation)
        let gitResult = try git(["index-pack"] + gitArguments + [path], in: directory.path, check: false)
        #expect(gitResult.status != 0, sourceLocation: sourceLocation)
    }

    @Test func badSignature() throws {
        var pack = Self.sample.pack
        pack[3] = UInt8(ascii: "X")
        try expectRejected(pack, offset: 0) { $0 == .badSignature }
    }

    @Test func unsupportedVersion() throws {
        var pack = Self.sample.pack
        pack[7] = 4
        try expectRejected(rehashed(pack), offset: 4) { $0 == .unsupportedVersion(4) }
    }

    @Test(arguments: [5, 12, 100, 1000, -21, -1])
    func truncated(keeping length: Int) throws {
        let pack = Self.sample.pack
        let kept = Array(pack.prefix(length > 0 ? length : pack.count + length))
        try expectRejected(kept) {
            if case .truncated = $0 { return true }
            return false
        }
    }

    @Test func checksumMismatch() throws {
        var pack = Self.sample.pack
        pack[pack.count - 1] ^= 1
        let trailerOffset = UInt64(pack.count - 20)
        try expectRejected(pack, offset: trailerOffset) {
            if case .checksumMismatch(let expected, let computed) = $0 {
                return expected == ObjectID(bytes: pack.suffix(20), format: .sha1)
                    && computed == UncheckedSHA1.hash(pack.dropLast(20))
            }
            return false
        }
    }

    @Test func countRaisedWithValidChecksum() throws {
        try expectRejected(rehashed(withCount(Self.count + 1))) {
            $0 == .objectCountMismatch(header: Self.count + 1, objectsRead: Int(Self.count))
        }
    }

    @Test func countLoweredWithValidChecksum() throws {
        let offset = Self.sample.offsets[Int(Self.count) - 1]
        try expectRejected(rehashed(withCount(Self.count - 1)), offset: offset) {
            $0 == .dataAfterEnd(objectCount: Self.count - 1)
        }
    }

    @Test func countRaisedWithOriginalChecksum() throws {
        try expectRejected(withCount(Self.count + 1)) {
            $0 == .truncated(objectsRead: Int(Self.count), objectsExpected: Self.count + 1)
        }
    }

    @Test func countLoweredWithOriginalChecksum() throws {
        try expectRejected(withCount(Self.count - 1)) { $0 == .dataAfterEnd(objectCount: Self.count - 1) }
    }

    @Test func junkAfterTheTrailer() throws {
        let pack = Self.sample.pack
        try expectRejected(pack + [1, 2, 3], offset: UInt64(pack.count - 20)) {
            $0 == .dataAfterEnd(objectCount: Self.count)
        }
    }

    @Test(arguments: [2, 10, 30])
    func flippedByteInAZlibStream(entry: Int) throws {
        var pack = Self.sample.pack
        let entryOffset = Self.sample.offsets[entry]
        // The last byte of the stream is part of its Adler-32 check, so zlib must notice.
        pack[Int(Self.sample.offsets[entry + 1]) - 1] ^= 0x40
        try expectRejected(rehashed(pack), offset: entryOffset) {
            if case .badZlibStream = $0 { return true }
            return false
        }
    }

    @Test func objectLongerThanItsHeaderSays() throws {
        var builder = TestPackBuilder()
        try builder.addObject(.blob, Array("hello".utf8))
        let offset = try builder.addObject(.blob, Array("twelve bytes".utf8), size: 10)
        try expectRejected(builder.bytes(), offset: UInt64(offset)) { $0 == .sizeMismatch(expected: 10, actual: nil) }
    }

    @Test func objectShorterThanItsHeaderSays() throws {
        var builder = TestPackBuilder()
        let offset = try builder.addObject(.blob, Array("ten bytes!".utf8), size: 12)
        try expectRejected(builder.bytes(), offset: UInt64(offset)) { $0 == .sizeMismatch(expected: 12, actual: 10) }
    }

    @Test func badObjectType() throws {
        var builder = TestPackBuilder()
        try builder.addObject(.blob, Array("hello".utf8))
        let offset = builder.nextOffset
        builder.addRaw([0x50, 0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])
        try expectRejected(builder.bytes(), offset: UInt64(offset)) { $0 == .badObjectType(5) }
    }

    @Test func referenceDeltaBaseMissing() throws {
        var builder = TestPackBuilder()
        try builder.addObject(.blob, Array("hello".utf8))
        let missing = ObjectID(String(repeating: "ab", count: 20))!
        let offset = try builder.addReferenceDelta(
            base: missing, makeDelta(baseSize: 5, resultSize: 3, insertInstruction(Array("abc".utf8))))
        try expectRejected(builder.bytes(), offset: UInt64(offset)) { $0 == .deltaBaseMissing(.id(missing)) }
    }

    @Test func offsetDeltaToTheMiddleOfAnEntry() throws {
        var builder = TestPackBuilder()
        let base = try builder.addObject(.blob, Array("hello, world".utf8))
        let offset = try builder.addOffsetDelta(
            baseOffset: base + 1, makeDelta(baseSize: 12, resultSize: 5, copyInstruction(offset: 0, size: 5)))
        try expectRejected(builder.bytes(), offset: UInt64(offset)) {
            $0 == .deltaBaseNotAnEntry(baseOffset: UInt64(base + 1))
        }
    }

    @Test func deltaCopyOutOfRange() throws {
        var builder = TestPackBuilder()
        let base = try builder.addObject(.blob, Array("hello".utf8))
        let offset = try builder.addOffsetDelta(
            baseOffset: base, makeDelta(baseSize: 5, resultSize: 10, copyInstruction(offset: 2, size: 10)))
        try expectRejected(builder.bytes(), offset: UInt64(offset)) {
            $0 == .badDelta(.copyOutOfRange(at: 2, offset: 2, size: 10, baseSize: 5))
        }
    }

    @Test func deltaWithReservedOpcode() throws {
        var builder = TestPackBuilder()
        let base = try builder.addObject(.blob, Array("hello".utf8))
        let offset = try builder.addOffsetDelta(baseOffset: base, makeDelta(baseSize: 5, resultSize: 1, [0, 0]))
        try expectRejected(builder.bytes(), offset: UInt64(offset)) { $0 == .badDelta(.reservedOpcode(at: 2)) }
    }

    @Test func deltaForABaseOfAnotherSize() throws {
        var builder = TestPackBuilder()
        let base = try builder.addObject(.blob, Array("hello".utf8))
        let offset = try builder.addOffsetDelta(
            baseOffset: base, makeDelta(baseSize: 6, resultSize: 5, copyInstruction(offset: 0, size: 5)))
        try expectRejected(builder.bytes(), offset: UInt64(offset)) {
            $0 == .badDelta(.baseSizeMismatch(expected: 6, actual: 5))
        }
    }

    @Test func duplicateObjects() throws {
        var builder = TestPackBuilder()
        let first = try builder.addObject(.blob, Array("same".utf8))
        try builder.addObject(.blob, Array("other".utf8))
        let second = try builder.addObject(.blob, Array("same".utf8))
        let id = try GitObject(type: .blob, data: Array("same".utf8)).id(.sha1)
        try expectRejected(builder.bytes(), offset: UInt64(second), gitArguments: ["--strict"]) {
            $0 == .duplicateObject(id, firstOffset: UInt64(first))
        }
    }

    /// zlib streams zlib refuses and libdeflate 1.14 decodes: a fixed-Huffman length code of 286,
    /// and a distance code of 30 after 30,000 bytes. zlib reads every stream in the first pass
    /// (on the helper's thread when libdeflate read it first), so gitwire refuses them where git
    /// does, as whole objects and as deltas; and when an entry after them is broken too (of the
    /// reserved type 5), still at the stream, the first failure in the pack, as git does.
    @Test(arguments: [false, true], [false, true])
    func streamsOnlyLibdeflateDecodes(distanceCode30: Bool, asDelta: Bool) throws {
        try streamsOnlyLibdeflateDecodes(distanceCode30: distanceCode30, asDelta: asDelta, brokenAfter: false)
        try streamsOnlyLibdeflateDecodes(distanceCode30: distanceCode30, asDelta: asDelta, brokenAfter: true)
    }

    private func streamsOnlyLibdeflateDecodes(distanceCode30: Bool, asDelta: Bool, brokenAfter: Bool) throws {
        let (stream, content) = streamOnlyLibdeflateDecodes(distanceCode30: distanceCode30)
        var builder = TestPackBuilder()
        let offset: Int
        if asDelta {
            let base = try builder.addObject(.blob, content)
            offset = builder.nextOffset
            builder.addRaw(
                PackEncoding.entryHeader(typeNumber: 6, size: UInt64(content.count))
                    + PackEncoding.baseDistance(offset - base) + stream)
        } else {
            offset = builder.nextOffset
            builder.addRaw(PackEncoding.entryHeader(typeNumber: 3, size: UInt64(content.count)) + stream)
        }
        if brokenAfter { builder.addRaw(PackEncoding.entryHeader(typeNumber: 5, size: 1) + [0x78, 0x01]) }
        try expectRejected(builder.bytes(), offset: UInt64(offset)) {
            if case .badZlibStream = $0 { return true }
            return false
        }
        try expectGitFails(builder.bytes(), atOffset: offset)
    }

    /// A delta stream zlib refuses and libdeflate decodes, in a pack that also fails in resolution
    /// (a reference delta whose base is nowhere, or a later delta, resolved first, with a reserved
    /// opcode). The first pass has only libdeflate read delta streams, and resolution either never
    /// reads this one or fails before it; git fails in its first pass, at the stream, and so does
    /// gitwire.
    @Test(arguments: [false, true], [false, true])
    func deltaStreamOnlyLibdeflateDecodesWithAResolutionError(distanceCode30: Bool, baseMissing: Bool) throws {
        let (stream, content) = streamOnlyLibdeflateDecodes(distanceCode30: distanceCode30)
        var builder = TestPackBuilder()
        let base = try builder.addObject(.blob, content)
        let offset = builder.nextOffset
        if baseMissing {
            let missing = try GitObject(type: .blob, data: Array("nowhere".utf8)).id(.sha1)
            builder.addRaw(
                PackEncoding.entryHeader(typeNumber: 7, size: UInt64(content.count)) + missing.bytes + stream)
        } else {
            builder.addRaw(
                PackEncoding.entryHeader(typeNumber: 6, size: UInt64(content.count))
                    + PackEncoding.baseDistance(offset - base) + stream)
            // A child of the broken delta, so that its subtree is the larger and the broken delta
            // is resolved after the other delta on the same base.
            try builder.addOffsetDelta(
                baseOffset: offset,
                makeDelta(baseSize: content.count, resultSize: 1, copyInstruction(offset: 0, size: 1)))
            try builder.addOffsetDelta(baseOffset: base, makeDelta(baseSize: content.count, resultSize: 1, [0, 0]))
        }
        try expectRejected(builder.bytes(), offset: UInt64(offset)) {
            if case .badZlibStream = $0 { return true }
            return false
        }
        try expectGitFails(builder.bytes(), atOffset: offset)
    }

    /// Checks that `git index-pack` refuses `pack` at the entry at `offset`, with zlib's error.
    private func expectGitFails(
        _ pack: [UInt8], atOffset offset: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("broken.pack")
        try writeFile(path, pack)
        let result = try git(["index-pack", path], in: directory.path, check: false)
        let message = String(decoding: result.standardError, as: UTF8.self)
        #expect(result.status != 0, sourceLocation: sourceLocation)
        #expect(
            message.contains("bad object at offset \(offset): inflate returned -3"), "git: \(message)",
            sourceLocation: sourceLocation)
    }

    /// A zlib stream zlib refuses and libdeflate 1.14 decodes, and what libdeflate decodes it to: a
    /// fixed-Huffman length code of 286, or a distance code of 30 after 30,000 bytes.
    private func streamOnlyLibdeflateDecodes(distanceCode30: Bool) -> (stream: [UInt8], content: [UInt8]) {
        var bits = DeflateBits()
        var content: [UInt8]
        if distanceCode30 {
            content = (0..<30000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            bits.put(0, 3)  // a stored block, not the last
            bits.alignToByte()
            bits.bytes += [0x30, 0x75, 0xcf, 0x8a] + content  // LEN 30000, NLEN
            bits.put(1, 1)
            bits.put(1, 2)  // the last block, fixed Huffman codes
            bits.code(0b0000001, 7)  // length 3
            bits.code(0b11110, 5)  // distance code 30: 24577 plus 13 extra bits, here 0
            bits.put(0, 13)
            content += content[(content.count - 24577)..<(content.count - 24577 + 3)]
        } else {
            bits.put(1, 1)
            bits.put(1, 2)
            bits.code(0x30 + 0x61, 8)  // 'a'
            bits.code(0b1100_0110, 8)  // length code 286 (libdeflate: 258)
            bits.code(0, 5)  // distance 1
            content = [UInt8](repeating: 0x61, count: 259)
        }
        bits.code(0, 7)  // end of block
        bits.alignToByte()
        return ([0x78, 0x01] + bits.bytes + adler32(content), content)
    }

    private func withCount(_ count: UInt32) -> [UInt8] {
        var pack = Self.sample.pack
        pack.replaceSubrange(8..<12, with: PackHeader(objectCount: count).bytes[8..<12])
        return pack
    }
}

/// Writes a deflate stream bit by bit: fields least significant bit first, Huffman codes most
/// significant bit first (RFC 1951).
private struct DeflateBits {
    var bytes: [UInt8] = []
    private var used = 8

    mutating func put(_ value: Int, _ count: Int) {
        for bit in 0..<count { append((value >> bit) & 1) }
    }

    mutating func code(_ value: Int, _ count: Int) {
        for bit in stride(from: count - 1, through: 0, by: -1) { append((value >> bit) & 1) }
    }

    mutating func alignToByte() { used = 8 }

    private mutating func append(_ bit: Int) {
        if used == 8 {
            bytes.append(0)
            used = 0
        }
        bytes[bytes.count - 1] |= UInt8(bit) << used
        used += 1
    }
}

/// zlib's checksum of `data`, big-endian, as it ends a zlib stream.
private func adler32(_ data: [UInt8]) -> [UInt8] {
    var a: UInt32 = 1
    var b: UInt32 = 0
    for byte in data {
        a = (a + UInt32(byte)) % 65521
        b = (b + a) % 65521
    }
    let value = b << 16 | a
    return [UInt8(value >> 24), UInt8((value >> 16) & 0xff), UInt8((value >> 8) & 0xff), UInt8(value & 0xff)]
}
