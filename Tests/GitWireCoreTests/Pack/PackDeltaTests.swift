import GitWireCore
import GitWireCoreTestSupport
import Testing

/// The delta applier, on hand-made deltas.
@Suite struct PackDeltaTests {
    let base = Array("The quick brown fox jumps over the lazy dog".utf8)

    @Test func copiesAndInserts() throws {
        let delta = makeDelta(
            baseSize: base.count, resultSize: 19,
            copyInstruction(offset: 4, size: 6) + insertInstruction(Array("red ".utf8))
                + copyInstruction(offset: 16, size: 9))
        #expect(try Delta.apply(delta[...], to: base[...]) == Array("quick red fox jumps".utf8))
    }

    @Test func copyOfSizeZeroMeans64KiB() throws {
        let big = (0..<0x12000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let delta = makeDelta(baseSize: big.count, resultSize: 0x10000, [0x80 | 0x01, 0x10])
        #expect(try Delta.apply(delta[...], to: big[...]) == Array(big[0x10..<0x10010]))
    }

    @Test func copyWithEveryOffsetAndSizeByte() throws {
        let big = (0..<0x1_0300).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let delta = makeDelta(baseSize: big.count, resultSize: 0x102, [0xff, 0x01, 0x01, 0x01, 0x01, 0x02, 0x01, 0x00])
        #expect(throws: DeltaError.copyOutOfRange(at: 5, offset: 0x0101_0101, size: 0x102, baseSize: big.count)) {
            try Delta.apply(delta[...], to: big[...])
        }
        let inRange = makeDelta(baseSize: big.count, resultSize: 0x102, [0xb3, 0x01, 0x01, 0x02, 0x01])
        #expect(try Delta.apply(inRange[...], to: big[...]) == Array(big[0x101..<0x203]))
    }

    /// An empty result is fine when the delta has git's minimum length of 4 bytes (a base of
    /// 2^14 bytes or more takes 3 bytes to give its size); git's `patch_delta` refuses shorter ones.
    @Test func emptyResult() throws {
        let big = [UInt8](repeating: 7, count: 1 << 14)
        let delta = makeDelta(baseSize: big.count, resultSize: 0, [])
        #expect(delta.count == 4)
        #expect(try Delta.apply(delta[...], to: big[...]) == [])
        #expect(throws: DeltaError.tooShort(size: 2)) {
            try Delta.apply(makeDelta(baseSize: base.count, resultSize: 0, [])[...], to: base[...])
        }
    }

    @Test func headerSizes() throws {
        let header = try Delta.header(makeDelta(baseSize: 300, resultSize: 70000, [1, 2])[...])
        #expect(header == Delta.Header(baseSize: 300, resultSize: 70000, instructionsStart: 5))
    }

    @Test func appliesWithinSlices() throws {
        let delta = [9, 9] + makeDelta(baseSize: 5, resultSize: 3, copyInstruction(offset: 1, size: 3)) + [9]
        let padded = [0] + Array("hello".utf8) + [0]
        #expect(try Delta.apply(delta[2..<(delta.count - 1)], to: padded[1..<6]) == Array("ell".utf8))
    }

    @Test(
        arguments: [
            ([], DeltaError.tooShort(size: 0)),
            ([43], .tooShort(size: 1)),
            ([0x80, 0x80], .tooShort(size: 2)),
            ([0x80, 0x80, 0x80], .tooShort(size: 3)),
            ([0x80, 0x80, 0x80, 0x80], .truncatedHeader),
            ([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0], .sizeOverflow),
            ([44, 1, 0x90, 0], .baseSizeMismatch(expected: 44, actual: 43)),
            ([43, 1, 0, 0], .reservedOpcode(at: 2)),
            ([43, 3, 5, 1, 2], .truncatedInstruction(at: 2)),
            ([43, 3, 0x91, 1], .truncatedInstruction(at: 2)),
            ([43, 3, 0x91, 40, 4], .copyOutOfRange(at: 2, offset: 40, size: 4, baseSize: 43)),
            ([43, 2, 0x91, 0, 3], .resultTooLong(at: 2)),
            ([43, 2, 3, 1, 2, 3], .resultTooLong(at: 2)),
            ([43, 5, 0x91, 0, 3], .resultSizeMismatch(expected: 5, actual: 3)),
        ] as [([UInt8], DeltaError)])
    func rejectsBadDeltas(delta: [UInt8], error: DeltaError) {
        var bytes = delta
        if bytes.first == 43 { bytes[0] = UInt8(base.count) }
        if bytes.first == 44 { bytes[0] = UInt8(base.count + 1) }
        #expect(throws: error) { try Delta.apply(bytes[...], to: base[...]) }
    }

    @Test func hugeClaimedResultSizeDoesNotAllocateIt() {
        let delta = makeDelta(baseSize: base.count, resultSize: 1 << 50, copyInstruction(offset: 0, size: 3))
        #expect(throws: DeltaError.resultSizeMismatch(expected: 1 << 50, actual: 3)) {
            try Delta.apply(delta[...], to: base[...])
        }
    }
}

/// The entry header parser and encoder.
@Suite struct PackEntryHeaderTests {
    @Test(arguments: [0, 1, 15, 16, 127, 128, 2047, 2048, 1 << 20, (1 << 35) + 3, UInt64.max >> 4] as [UInt64])
    func encodesAndParsesSizes(size: UInt64) throws {
        for type in ObjectType.allCases {
            let bytes = PackEntryHeader.encode(type: type, size: size)
            let header = try PackEntryHeader.parse(bytes[...], at: 100, format: .sha1)
            #expect(header == PackEntryHeader(kind: .object(type), size: size, length: bytes.count))
            for cut in 0..<bytes.count {
                #expect(try PackEntryHeader.parse(bytes[..<cut], at: 100, format: .sha1) == nil)
            }
        }
    }

    @Test func parsesOffsetDeltas() throws {
        // Distances 1, 127, 128 and 16511 as git encodes them.
        let cases: [([UInt8], UInt64)] = [([0x01], 1), ([0x7f], 127), ([0x80, 0x00], 128), ([0xff, 0x7f], 16511)]
        for (encoded, distance) in cases {
            let bytes = [0x65] + encoded
            let header = try PackEntryHeader.parse(bytes[...], at: 20000, format: .sha1)
            #expect(
                header
                    == PackEntryHeader(kind: .offsetDelta(baseOffset: 20000 - distance), size: 5, length: bytes.count))
            #expect(try PackEntryHeader.parse(bytes.dropLast()[...], at: 20000, format: .sha1) == nil)
        }
    }

    @Test func parsesReferenceDeltas() throws {
        let id = ObjectID(String(repeating: "0123456789", count: 4))!
        let bytes = [0xf2, 0x01] + id.bytes + [0x78]
        let header = try PackEntryHeader.parse(bytes[...], at: 12, format: .sha1)
        #expect(header == PackEntryHeader(kind: .referenceDelta(base: id), size: 18, length: 22))
        #expect(try PackEntryHeader.parse(bytes[..<21], at: 12, format: .sha1) == nil)
    }

    @Test func parsesWithinASlice() throws {
        let bytes: [UInt8] = [0xaa, 0xbb, 0x35, 0x99]
        #expect(
            try PackEntryHeader.parse(bytes[2...], at: 50, format: .sha1)
                == PackEntryHeader(kind: .object(.blob), size: 5, length: 1))
    }

    @Test(
        arguments: [
            ([0x05] as [UInt8], UInt64(12), PackError.Reason.badObjectType(0)),
            ([0x55], 12, .badObjectType(5)),
            ([0x65, 0x20], 20, .badDeltaBaseOffset(distance: 32)),
            ([0x65, 0x14], 20, .badDeltaBaseOffset(distance: 20)),
            ([0x65, 0x00], 20, .badDeltaBaseOffset(distance: 0)),
            ([0x65] + [UInt8](repeating: 0xff, count: 9) + [0x7f], 20, .headerOverflow),
            ([0xb5] + [UInt8](repeating: 0xff, count: 9) + [0x7f], 20, .headerOverflow),
        ] as [([UInt8], UInt64, PackError.Reason)])
    func rejectsBadHeaders(bytes: [UInt8], offset: UInt64, reason: PackError.Reason) {
        #expect(throws: PackError(offset: offset, reason)) {
            try PackEntryHeader.parse(bytes[...], at: offset, format: .sha1)
        }
    }

    @Test func packHeader() throws {
        let header = PackHeader(version: 3, objectCount: 0x0102_0304)
        #expect(try PackHeader.parse(header.bytes[...]) == header)
        #expect(try PackHeader.parse(header.bytes[..<11]) == nil)
        #expect(throws: PackError(offset: 0, .badSignature)) { try PackHeader.parse(Array("PACX".utf8)[...]) }
        #expect(throws: PackError(offset: 0, .badSignature)) { try PackHeader.parse(Array("Q".utf8)[...]) }
        var version1 = header.bytes
        version1[7] = 1
        #expect(throws: PackError(offset: 4, .unsupportedVersion(1))) { try PackHeader.parse(version1[...]) }
    }
}
