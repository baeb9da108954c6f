/// The names of a table git keeps in name order behind a 256-entry fan-out (a pack index, a
/// commit-graph's `OIDF` and `OIDL` chunks), for lookups: entry *b* of the fan-out counts the
/// names whose first byte is at most *b*, big-endian. The one reader and writer of the fan-out
/// in the package.
package struct SortedNames: Sendable {
    /// The length of a fan-out table in bytes.
    package static let fanOutLength = 256 * 4

    /// The fan-out decreases at this bucket.
    package struct FanOutDecrease: Error, Sendable {
        /// The first bucket whose count is lower than the one before it.
        package var bucket: Int
    }

    /// Where each bucket's names start, and (at 256) the number of names.
    @usableFromInline let starts: [Int]
    /// The first eight bytes of each name, big-endian, in name order: lookups search these (8
    /// bytes a name) and read a whole name only where they match.
    @usableFromInline let prefixes: [UInt64]
    /// A finer fan-out over `prefixes`, by the first `radixBits` bits of a name: `radix[k]` is
    /// the first position whose name's first bits are `k` or more (`radix[1 << radixBits]` is
    /// `count`). About two names a slot: a lookup searches a few neighbouring prefixes instead of
    /// binary-searching a bucket of the 256 (1,900 names each in curl's pack: about ten reads,
    /// half of them cache misses).
    @usableFromInline let radix: [UInt32]
    /// The number of a name's first bits `radix` is indexed by: 8 to 16.
    @usableFromInline let radixBits: Int

    /// The number of names.
    package var count: Int { prefixes.count }

    /// The number of names the fan-out at `start` in `bytes` counts (its last entry), after
    /// checking that it never decreases.
    package static func count(fanOut bytes: ArraySlice<UInt8>, at start: Int) throws(FanOutDecrease) -> Int {
        var previous: UInt32 = 0
        for bucket in 0..<256 {
            let value = bigEndianUInt32(bytes, at: start + bucket * 4)
            guard value >= previous else { throw FanOutDecrease(bucket: bucket) }
            previous = value
        }
        return Int(previous)
    }

    /// The table of `bytes` whose fan-out (checked by ``count(fanOut:at:)``) is at `fanOut` and
    /// whose names, `width` bytes each, start at `names`; `bytes` holds them all.
    package init(_ bytes: ArraySlice<UInt8>, fanOut: Int, names: Int, width: Int) {
        var starts = [0]
        starts.reserveCapacity(257)
        for bucket in 0..<256 { starts.append(Int(bigEndianUInt32(bytes, at: fanOut + bucket * 4))) }
        self.starts = starts
        prefixes = (0..<starts[256]).map { position in
            let start = names + position * width
            var value: UInt64 = 0
            for index in start..<(start + 8) { value = value << 8 | UInt64(bytes[index]) }
            return value
        }
        // Between 8 bits (the fan-out's) and 16 (256 KiB of table), about two names a slot.
        let count = starts[256]
        let radixBits = min(16, max(8, (Int.bitWidth - count.leadingZeroBitCount) - 1))
        var radix = [UInt32](repeating: UInt32(truncatingIfNeeded: count), count: (1 << radixBits) + 1)
        var slot = 0
        for (position, prefix) in prefixes.enumerated() {
            let first = Int(truncatingIfNeeded: prefix >> UInt64(64 - radixBits))
            while slot <= first {
                radix[slot] = UInt32(truncatingIfNeeded: position)
                slot += 1
            }
        }
        self.radix = radix
        self.radixBits = radixBits
    }

    /// The position of `id` in name order, or nil if the table does not hold it; `name` gives the
    /// whole name at a position whose first eight bytes match. Inlinable, as the lookups of every
    /// object read are: the search compiles into each caller.
    @inlinable
    package func position(of id: ObjectID, name: (Int) -> ObjectID) -> Int? {
        let bucket = Int(id.firstByte)
        let end = starts[bucket + 1]
        // The names sharing the key's first `radixBits` bits (a few), within its fan-out bucket;
        // names of one prefix are next to each other (in a table in name order).
        let slot = Int(truncatingIfNeeded: id.w0 >> UInt64(64 - radixBits))
        let low = max(starts[bucket], Int(radix[slot]))
        let high = min(end, Int(radix[slot + 1]))
        guard low < high else { return nil }
        var position = partitionPoint(in: low..<high) { prefixes[$0] < id.w0 }
        while position < end && prefixes[position] == id.w0 {
            if name(position) == id { return position }
            position += 1
        }
        return nil
    }

    /// The fan-out of a table holding names with these first bytes, as the file stores it.
    package static func fanOut(firstBytes: some Sequence<UInt8>) -> [UInt8] {
        var counts = [UInt32](repeating: 0, count: 256)
        for byte in firstBytes { counts[Int(byte)] += 1 }
        var table = [UInt8]()
        table.reserveCapacity(fanOutLength)
        var running: UInt32 = 0
        for count in counts {
            running += count
            table += [
                UInt8(running >> 24), UInt8(running >> 16 & 0xff), UInt8(running >> 8 & 0xff), UInt8(running & 0xff),
            ]
        }
        return table
    }
}
