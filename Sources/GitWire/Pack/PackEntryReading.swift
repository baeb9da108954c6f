/// Reads one whole entry of a pack on disk: its header and its inflated content.
enum PackEntryReading {
    /// The compressed bytes read from the file at a time: an entry's zlib stream is never held
    /// whole, only its inflated content.
    static let chunkSize = 1 << 20

    /// The entry occupying `range` of `file` (header and zlib stream), inflated with `inflater`, in a
    /// pack of `format`.
    /// A short read or an unparsable header means the file changed under the reader. The content
    /// is allocated at the size the header gives only once that size is shown possible for the
    /// entry's compressed length (``Inflater/maximumExpansion``).
    ///
    /// `whole` (libdeflate, twice as fast) may inflate an entry that fits one read instead, but only
    /// entries zlib has already accepted: libdeflate decodes some streams zlib refuses (more than
    /// 286 literal/length or 30 distance codes, distance codes 30 and 31), so it must never be the
    /// first to read a stream, or gitwire would accept packs git refuses. Delta resolution passes
    /// it for whole objects (the first pass had zlib read their streams) and not for deltas (the
    /// first pass only had libdeflate find where their streams end: resolution's reading is
    /// zlib's first); readers of packs on disk do not.
    ///
    /// `wholeRange`: the stream must take all of `range` after the header, as the first pass
    /// measured it with libdeflate; a stream zlib ends elsewhere is refused.
    ///
    /// `window`: an entry that fits it is read through it (``PackReadWindow``), which must be on
    /// `file`.
    static func read(
        _ range: Range<UInt64>, of file: File, format: ObjectFormat, with inflater: Inflater,
        whole: WholeInflater? = nil, wholeRange: Bool = false, window: PackReadWindow? = nil
    ) throws -> (header: PackEntryHeader, data: [UInt8]) {
        let offset = range.lowerBound
        let length = range.upperBound - offset
        let first: ArraySlice<UInt8>
        if let window, length <= UInt64(PackReadWindow.size) {
            first = try window.bytes(range)
        } else {
            first = try file.read(at: Int64(offset), count: Int(min(length, UInt64(chunkSize))))[...]
        }
        guard UInt64(first.count) == min(length, UInt64(chunkSize)),
            let header = try PackEntryHeader.parse(first[...], at: offset, format: format)
        else { throw PackError(offset: offset, .packChangedOnDisk) }
        let compressed = length - UInt64(header.length)
        let (limit, overflow) = compressed.multipliedReportingOverflow(by: UInt64(Inflater.maximumExpansion))
        guard header.size <= UInt64(Int.max), overflow || header.size <= limit else {
            throw PackError(offset: offset, .sizeMismatch(expected: header.size, actual: nil))
        }
        if length <= UInt64(chunkSize), let whole,
            let (data, _) = whole.inflate(first.dropFirst(header.length), size: Int(header.size))
        {
            return (header, data)
        }
        var position = offset + UInt64(first.count)
        var pending: ArraySlice<UInt8>? = first.dropFirst(header.length)
        do {
            let (data, consumed) = try inflater.inflateWhole(size: Int(header.size)) {
                if let chunk = pending {
                    pending = nil
                    return chunk
                }
                guard position < range.upperBound else { return nil }
                let count = Int(min(range.upperBound - position, UInt64(chunkSize)))
                let chunk = try file.read(at: Int64(position), count: count)
                guard chunk.count == count else { throw PackError(offset: offset, .packChangedOnDisk) }
                position += UInt64(count)
                return chunk[...]
            }
            if wholeRange && UInt64(consumed) != compressed {
                throw PackError(offset: offset, .badZlibStream("zlib reads the stream otherwise than libdeflate"))
            }
            return (header, data)
        } catch let error as ZlibError {
            throw PackError(offset: offset, .badZlibStream(error.description))
        } catch let error as InflateSizeError {
            throw PackError(offset: offset, .badZlibStream(error.description))
        }
    }

    /// The first delta entry of `table` (a first pass's, in pack order) starting before `limit`
    /// whose stream zlib refuses, read from the pack at `packPath`; nil if there is none (or the
    /// pack cannot be read). The first pass has only libdeflate read delta streams, and
    /// resolution has zlib read them in the order of their trees; a pack that fails for any reason
    /// is checked with this so that it fails at the first stream zlib refuses, where reading in
    /// order, as git does, stops.
    static func firstRefusedDeltaStream(in table: PackEntryTable, before limit: UInt64, packPath: String)
        -> PackError?
    {
        guard let file = try? File.openForReading(packPath), let inflater = try? Inflater() else { return nil }
        for index in 0..<table.count where table.isDelta(index) {
            let start = table.offsets[index]
            guard start < limit else { break }
            let end = index + 1 < table.count ? table.offsets[index + 1] : table.endOffset
            guard start < end else { continue }
            do {
                _ = try read(start..<end, of: file, format: table.format, with: inflater, wholeRange: true)
            } catch let error as PackError {
                if case .badZlibStream = error.reason { return error }
            } catch {}
        }
        return nil
    }
}
