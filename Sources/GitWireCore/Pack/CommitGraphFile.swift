/// One commit-graph file (`gitformat-commit-graph`): git's `objects/info/commit-graph`, or one
/// layer of a split graph under `objects/info/commit-graphs/`, parsed and checked: each commit's
/// tree, parents, committer date and generation without reading the commit object.
///
/// Everything a lookup reads is checked here (header, chunk table, chunk sizes, fan-out order),
/// so a damaged file is refused whole rather than read out of bounds; what a single entry says
/// (parent positions, extra-edge lists) is checked when it is read (``CommitGraphChain``). The
/// trailing checksum is not computed here (``checksumRange``): git does not compute it either
/// when it opens a graph.
public struct CommitGraphFile: Sendable {
    /// The format of the commit and tree ids.
    public let format: ObjectFormat
    /// The number of commits in this file.
    public let count: Int
    /// The checksums of the layers below this one, base first (empty for a graph of one file).
    public let baseGraphs: [ObjectID]
    /// The file's trailing checksum (the name a chain gives the layer).
    public let checksum: ObjectID
    /// Whether the file has corrected commit dates (`GDA2`): generation numbers v2.
    public let hasGenerationData: Bool
    private let bytes: [UInt8]
    private let lookup: Int
    private let data: Int
    private let edges: Range<Int>?
    private let generationData: Int?
    private let generationOverflow: Range<Int>?
    /// The fan-out and the first eight bytes of each id: lookups search these.
    private let names: SortedNames

    /// No parent (git's `GRAPH_PARENT_NONE`).
    static let parentNone: UInt32 = 0x7000_0000
    /// The second parent word names a list in the extra-edge chunk (`GRAPH_EXTRA_EDGES_NEEDED`).
    static let extraEdges: UInt32 = 0x8000_0000
    private static let headerLength = 8
    private static let tableEntryLength = 12

    /// The bytes of one commit's record in the commit data chunk.
    private var recordLength: Int { format.byteCount + 16 }

    /// Parses and checks a commit-graph file whose ids are of `format` (the repository's: a file
    /// of the other hash is refused, as git refuses it).
    public init(bytes: [UInt8], format: ObjectFormat) throws(CommitGraphError) {
        let width = format.byteCount
        let headerAndTrailer = Self.headerLength + width
        guard bytes.count >= headerAndTrailer + Self.tableEntryLength + SortedNames.fanOutLength else {
            throw .tooShort(bytes.count)
        }
        guard bytes.starts(with: Array("CGPH".utf8)) else { throw .badSignature }
        guard bytes[4] == 1 else { throw .unsupportedVersion(bytes[4]) }
        guard bytes[5] == (format == .sha1 ? 1 : 2) else { throw .otherHash(bytes[5]) }
        let chunkCount = Int(bytes[6])
        let baseCount = Int(bytes[7])
        let tableEnd = Self.headerLength + (chunkCount + 1) * Self.tableEntryLength
        guard bytes.count >= tableEnd + width else { throw .tooShort(bytes.count) }
        let all = bytes[...]
        let contentEnd = bytes.count - width
        var chunks: [UInt32: Range<Int>] = [:]
        for index in 0..<chunkCount {
            let entry = Self.headerLength + index * Self.tableEntryLength
            let id = bigEndianUInt32(all, at: entry)
            let start = bigEndianUInt64(all, at: entry + 4)
            let end = bigEndianUInt64(all, at: entry + 4 + Self.tableEntryLength)
            guard id != 0 else { throw .badChunkTable }
            guard start >= UInt64(tableEnd), start <= end, end <= UInt64(contentEnd) else { throw .badChunkTable }
            guard chunks.updateValue(Int(start)..<Int(end), forKey: id) == nil else { throw .badChunkTable }
        }
        guard bigEndianUInt32(all, at: tableEnd - Self.tableEntryLength) == 0 else { throw .badChunkTable }
        // A chunk's bytes, nil when the file has none; throws if it has one of a size that fails `fits`.
        func optional(_ id: CommitGraphChunk, fits: (Int) -> Bool) throws(CommitGraphError) -> Range<Int>? {
            guard let range = chunks[id.id] else { return nil }
            guard fits(range.count) else { throw .missingChunk(id.name) }
            return range
        }
        func required(_ id: CommitGraphChunk, size: Int) throws(CommitGraphError) -> Range<Int> {
            guard let range = try optional(id, fits: { $0 == size }) else { throw .missingChunk(id.name) }
            return range
        }
        let fanOutChunk = try required(.fanOut, size: SortedNames.fanOutLength)
        let count: Int
        do {
            count = try SortedNames.count(fanOut: all, at: fanOutChunk.lowerBound)
        } catch {
            throw .badFanOut(bucket: error.bucket)
        }
        let lookupChunk = try required(.lookup, size: count * width)
        let dataChunk = try required(.commitData, size: count * (width + 16))
        generationData = try optional(.generationData) { $0 == count * 4 }?.lowerBound
        generationOverflow = try optional(.generationOverflow) { $0 % 8 == 0 }
        edges = try optional(.extraEdges) { $0 % 4 == 0 }
        var bases: [ObjectID] = []
        if baseCount > 0 {
            let base = try required(.baseGraphs, size: baseCount * width)
            for index in 0..<baseCount {
                bases.append(ObjectID(bytes: all[(base.lowerBound + index * width)...].prefix(width), format: format)!)
            }
        }
        self.format = format
        self.count = count
        self.bytes = bytes
        self.baseGraphs = bases
        hasGenerationData = generationData != nil
        lookup = lookupChunk.lowerBound
        data = dataChunk.lowerBound
        checksum = ObjectID(bytes: all[contentEnd...], format: format)!
        names = SortedNames(all, fanOut: fanOutChunk.lowerBound, names: lookupChunk.lowerBound, width: width)
    }

    /// The number of commits a commit-graph file lists, from its chunk `table` (the
    /// `chunkCount + 1` entries after the 8-byte header) and the last word of its fan-out,
    /// fetched by `read` (4 bytes at a file offset; fewer when the file ends first); nil when
    /// the table names no fan-out chunk of the right size. Lets a reader learn how large the
    /// file should be before reading it whole.
    public static func commitCount(
        table: ArraySlice<UInt8>, chunkCount: Int, read: (UInt64) -> [UInt8]
    ) -> Int? {
        guard table.count >= chunkCount * tableEntryLength + 12 else { return nil }
        let base = table.startIndex
        for index in 0..<chunkCount {
            let entry = base + index * tableEntryLength
            guard bigEndianUInt32(table, at: entry) == CommitGraphChunk.fanOut.id else { continue }
            let start = bigEndianUInt64(table, at: entry + 4)
            let end = bigEndianUInt64(table, at: entry + 4 + tableEntryLength)
            guard start <= end, end - start == UInt64(SortedNames.fanOutLength) else { return nil }
            let word = read(start + 255 * 4)
            guard word.count == 4 else { return nil }
            return Int(bigEndianUInt32(word[...], at: 0))
        }
        return nil
    }

    /// The bytes the trailing checksum covers, and the checksum, for a caller that verifies it.
    public var checksumRange: (covered: ArraySlice<UInt8>, checksum: ObjectID) {
        (bytes[..<(bytes.count - format.byteCount)], checksum)
    }

    /// The position of `id` in this file's name order, or nil if the file does not list it.
    public func position(of id: ObjectID) -> Int? {
        guard id.format == format else { return nil }
        return names.position(of: id, name: self.id(at:))
    }

    /// The commit id at `position` (less than ``count``) in name order.
    public func id(at position: Int) -> ObjectID {
        ObjectID(bytes: bytes[(lookup + position * format.byteCount)...], format: format)!
    }

    /// The record of the commit at `position` (less than ``count``): its tree, its two parent
    /// words as stored (positions in the whole chain, ``parentNone``, or an extra-edge index
    /// with ``extraEdges`` set), its topological level and its committer date.
    func record(at position: Int) -> (tree: ObjectID, parent1: UInt32, parent2: UInt32, level: UInt32, date: Int64) {
        let start = data + position * recordLength
        let width = format.byteCount
        let all = bytes[...]
        let high = bigEndianUInt32(all, at: start + width + 8)
        let low = bigEndianUInt32(all, at: start + width + 12)
        return (
            ObjectID(bytes: all[start...], format: format)!, bigEndianUInt32(all, at: start + width),
            bigEndianUInt32(all, at: start + width + 4), high >> 2, Int64(high & 3) << 32 | Int64(low)
        )
    }

    /// The extra-edge word at `index`, or nil past the chunk's end (or with no such chunk).
    func extraEdge(_ index: Int) -> UInt32? {
        guard let edges, index >= 0, index < edges.count / 4 else { return nil }
        return bigEndianUInt32(bytes[...], at: edges.lowerBound + index * 4)
    }

    /// The corrected commit date of the commit at `position` (committed `date`) from the
    /// generation data chunks, or nil when there are none or the overflow entry is missing.
    func correctedDate(at position: Int, date: Int64) -> Int64? {
        guard let generationData else { return nil }
        let offset = bigEndianUInt32(bytes[...], at: generationData + position * 4)
        guard offset & 0x8000_0000 != 0 else { return date + Int64(offset) }
        let index = Int(offset & 0x7fff_ffff)
        guard let overflow = generationOverflow, index < overflow.count / 8 else { return nil }
        let value = bigEndianUInt64(bytes[...], at: overflow.lowerBound + index * 8)
        guard value <= UInt64(Int64.max - max(date, 0)) else { return nil }
        return date + Int64(value)
    }
}

/// A commit-graph file cannot be read.
public enum CommitGraphError: GitWireError, Equatable, Sendable {
    /// What kind of failure this is: ``GitWireErrorKind/pack``.
    public var kind: GitWireErrorKind { .pack }

    /// The file is shorter than any commit-graph.
    case tooShort(Int)
    /// The file does not start with `CGPH`.
    case badSignature
    /// The version is not 1.
    case unsupportedVersion(UInt8)
    /// The file's ids are of another hash than the repository's.
    case otherHash(UInt8)
    /// The chunk table is malformed (offsets out of order or out of the file, a chunk twice, no
    /// terminating entry).
    case badChunkTable
    /// A required chunk is missing, or a chunk's size does not fit the number of commits.
    case missingChunk(String)
    /// The fan-out table decreases at this bucket.
    case badFanOut(bucket: Int)
    /// The trailing checksum is wrong.
    case checksumMismatch
    /// A split graph's layers do not chain (a layer's base list differs from the layers below).
    case chainMismatch

    /// The text shown to users and in logs.
    public var description: String {
        switch self {
        case .tooShort(let size): return "commit-graph file is too small (\(size) bytes)"
        case .badSignature: return "commit-graph signature does not match"
        case .unsupportedVersion(let version): return "commit-graph version \(version) is not 1"
        case .otherHash(let version): return "commit-graph hash version \(version) does not match the repository's"
        case .badChunkTable: return "commit-graph chunk table is malformed"
        case .missingChunk(let id): return "commit-graph chunk \(id) is missing or of the wrong size"
        case .badFanOut(let bucket): return "commit-graph fan-out decreases at bucket \(bucket)"
        case .checksumMismatch: return "commit-graph checksum mismatch"
        case .chainMismatch: return "commit-graph chain does not match"
        }
    }
}
