/// Reads one whole entry of a pack on disk: its header and its inflated content.
enum PackEntryReading {
    /// The entry occupying `range` of `file` (header and zlib stream), inflated with `inflater`.
    /// A short read or an unparsable header means the file changed under the reader.
    static func read(
        _ range: Range<UInt64>, of file: File, with inflater: Inflater
    ) throws -> (header: PackEntryHeader, data: [UInt8]) {
        let offset = range.lowerBound
        let raw = try file.read(at: Int64(offset), count: Int(range.upperBound - offset))
        guard raw.count == Int(range.upperBound - offset), let header = try PackEntryHeader.parse(raw[...], at: offset)
        else { throw PackError(offset: offset, .packChangedOnDisk) }
        do {
            let (data, _) = try inflater.inflateWhole(raw[header.length...], size: Int(header.size))
            return (header, data)
        } catch let error as ZlibError {
            throw PackError(offset: offset, .badZlibStream(error.description))
        } catch let error as InflateSizeError {
            throw PackError(offset: offset, .badZlibStream(error.description))
        }
    }
}
