extension PackReader {
    /// Where the entry of `id` lies in the pack file (header and compressed bytes) and its
    /// parsed header; nil when the pack does not hold it.
    func entry(of id: ObjectID) throws -> (header: PackEntryHeader, range: Range<UInt64>)? {
        guard let start = index.offset(of: id) else { return nil }
        guard let end = entryEnd(startingAt: start) else { throw PackError(offset: start, .packChangedOnDisk) }
        let needed = Int(min(end - start, UInt64(PackEntryHeader.maximumLength)))
        let window = headerWindow
        let windowEnd = window.start + UInt64(window.bytes.count)
        let first: ArraySlice<UInt8>
        if start >= window.start && start + UInt64(needed) <= windowEnd {
            let from = Int(start - window.start)
            first = window.bytes[from..<(from + needed)]
        } else {
            // Reading on in pack order (at or just past the bytes read before) reads a run of
            // entries at once; any other header is read alone, as before.
            let onward = window.bytes.isEmpty || (start >= window.start && start < windowEnd + (64 << 10))
            let bytes = try file.read(at: Int64(start), count: onward ? max(needed, 64 << 10) : needed)
            guard bytes.count >= needed else { throw PackError(offset: start, .packChangedOnDisk) }
            headerWindow = (start, bytes)
            first = bytes[0..<needed]
        }
        guard let header = try PackEntryHeader.parse(first, at: start, format: index.format) else {
            throw PackError(offset: start, .packChangedOnDisk)
        }
        return (header, start..<end)
    }
}
