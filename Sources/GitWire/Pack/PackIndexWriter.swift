/// Writes a version 2 pack index (`.idx`) byte for byte as `git index-pack` does: header, fan-out,
/// sorted names, CRC-32s, 4-byte offsets, 8-byte offsets, pack checksum, index checksum.
@usableFromInline package enum PackIndexWriter {
    /// Offsets above this go to the 8-byte table; git's default, and the largest 31-bit value.
    @usableFromInline package static let defaultLargeOffsetThreshold: UInt64 = 0x7fff_ffff

    /// The order of the entries sorted by name. Throws if two entries have the same name.
    package static func sortedOrder(ids: ObjectIDArray, offsets: [UInt64]) throws(PackError) -> [Int32] {
        var order = (0..<Int32(ids.count)).map { $0 }
        order.sort { ids.precedes(Int($0), Int($1)) }
        for position in order.indices.dropFirst() where ids.same(Int(order[position]), Int(order[position - 1])) {
            let first = min(offsets[Int(order[position])], offsets[Int(order[position - 1])])
            let second = max(offsets[Int(order[position])], offsets[Int(order[position - 1])])
            throw PackError(offset: second, .duplicateObject(ids[Int(order[position])], firstOffset: first))
        }
        return order
    }

    /// Writes the index of entries given as parallel arrays (`ids`, `crc32s`, `offsets`) in
    /// `order` (from ``sortedOrder(ids:offsets:)``), handing it to `sink` in pieces. Offsets above
    /// `largeOffsetThreshold` (or at or above 2^31) go to the 8-byte table, as in git.
    /// Returns the index's own checksum, its last 20 or 32 bytes (of `packChecksum`'s format:
    /// the names and checksums of an index are all of its pack's format).
    @discardableResult
    package static func write(
        ids: ObjectIDArray, crc32s: [UInt32], offsets: [UInt64], order: [Int32], packChecksum: ObjectID,
        largeOffsetThreshold: UInt64 = defaultLargeOffsetThreshold, to sink: (ArraySlice<UInt8>) throws -> Void
    ) throws -> ObjectID {
        try withoutActuallyEscaping(sink) { sink in
            try writeTables(
                ids: ids, crc32s: crc32s, offsets: offsets, order: order, packChecksum: packChecksum,
                largeOffsetThreshold: largeOffsetThreshold, to: HashingOutput(sink: sink, format: packChecksum.format))
        }
    }

    private static func writeTables(
        ids: ObjectIDArray, crc32s: [UInt32], offsets: [UInt64], order: [Int32], packChecksum: ObjectID,
        largeOffsetThreshold: UInt64, to start: HashingOutput
    ) throws -> ObjectID {
        var output = start
        try output.append([0xff, 0x74, 0x4f, 0x63, 0, 0, 0, 2])
        try output.append(SortedNames.fanOut(firstBytes: order.lazy.map { ids[Int($0)].firstByte }))
        for index in order { try output.append(id: ids[Int(index)]) }
        for index in order { try output.append(bigEndian: crc32s[Int(index)]) }
        let isLarge = { (offset: UInt64) in offset >> 31 != 0 || offset > largeOffsetThreshold }
        var largeCount: UInt32 = 0
        for index in order {
            let offset = offsets[Int(index)]
            if isLarge(offset) {
                try output.append(bigEndian: 0x8000_0000 | largeCount)
                largeCount += 1
            } else {
                try output.append(bigEndian: UInt32(offset))
            }
        }
        for index in order where isLarge(offsets[Int(index)]) {
            try output.append(bigEndian: offsets[Int(index)])
        }
        try output.append(id: packChecksum)
        return try output.finish()
    }

    /// Writes the whole index into an array; see ``write(ids:crc32s:offsets:order:packChecksum:largeOffsetThreshold:to:)``.
    package static func encode(
        ids: ObjectIDArray, crc32s: [UInt32], offsets: [UInt64], packChecksum: ObjectID,
        largeOffsetThreshold: UInt64 = defaultLargeOffsetThreshold
    ) throws(PackError) -> [UInt8] {
        let order = try sortedOrder(ids: ids, offsets: offsets)
        var bytes: [UInt8] = []
        // The sink only appends to an array, so nothing here can throw.
        try! write(
            ids: ids, crc32s: crc32s, offsets: offsets, order: order, packChecksum: packChecksum,
            largeOffsetThreshold: largeOffsetThreshold
        ) { bytes.append(contentsOf: $0) }
        return bytes
    }
}

/// Buffers output in 64 KiB pieces for a sink and keeps a running hash (of the pack's format)
/// that ends it.
private struct HashingOutput {
    let sink: (ArraySlice<UInt8>) throws -> Void
    var buffer: [UInt8] = []
    var hash: ObjectHasher

    init(sink: @escaping (ArraySlice<UInt8>) throws -> Void, format: ObjectFormat) {
        self.sink = sink
        hash = ObjectHasher(format)
        buffer.reserveCapacity(1 << 16)
    }

    mutating func append(_ bytes: [UInt8]) throws {
        buffer.append(contentsOf: bytes)
        try flushIfFull()
    }

    mutating func append(bigEndian value: UInt32) throws {
        appendBigEndian(value, to: &buffer)
        try flushIfFull()
    }

    mutating func append(bigEndian value: UInt64) throws {
        appendBigEndian(value, to: &buffer)
        try flushIfFull()
    }

    mutating func append(id: ObjectID) throws {
        id.append(to: &buffer)
        try flushIfFull()
    }

    mutating func finish() throws -> ObjectID {
        hash.update(buffer)
        let checksum = try hash.finish()
        checksum.append(to: &buffer)
        try sink(buffer[...])
        buffer.removeAll()
        return checksum
    }

    private mutating func flushIfFull() throws {
        guard buffer.count >= 1 << 16 else { return }
        hash.update(buffer)
        try sink(buffer[...])
        buffer.removeAll(keepingCapacity: true)
    }
}
