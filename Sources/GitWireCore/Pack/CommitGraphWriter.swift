/// Writes one commit-graph layer as git 2.39's `write_commit_graph_file` writes it: the chunks
/// `OIDF`, `OIDL`, `CDAT`, then `GDA2` (corrected commit date offsets, generation data v2, git's
/// default `commitGraph.generationVersion`), `GDO2` for offsets past 31 bits, `EDGE` for octopus
/// merges and `BASE` for the layers below, each commit's parents named by their position in the
/// whole chain. Pure: the caller appends the trailing checksum (the layer's name) and writes
/// the file.
public enum CommitGraphWriter {
    /// One commit of the layer: what its object says.
    public struct Commit: Sendable {
        /// The commit's id.
        public var id: ObjectID
        /// Its tree.
        public var tree: ObjectID
        /// Its parents, in order.
        public var parents: [ObjectID]
        /// Its committer date, in seconds since the epoch.
        public var date: Int64

        /// A commit of the layer.
        public init(id: ObjectID, tree: ObjectID, parents: [ObjectID], date: Int64) {
            self.id = id
            self.tree = tree
            self.parents = parents
            self.date = date
        }
    }

    /// A parent is neither in the layer nor in the chain below it.
    public struct MissingParentError: Error, Hashable, Sendable {
        /// The parent that is missing.
        public var parent: ObjectID
    }

    /// The bytes of a layer holding `commits` (each once, in any order) on top of `base` (nil or
    /// empty for a graph of one layer), without the trailing checksum. `generationData` writes
    /// `GDA2` (git leaves it out when a layer below lacks it).
    public static func layer(
        commits: [Commit], base: CommitGraphChain?, format: ObjectFormat, generationData: Bool
    ) throws(MissingParentError) -> [UInt8] {
        let sorted = commits.sorted { $0.id.bytes.lexicographicallyPrecedes($1.id.bytes) }
        var index: [ObjectID: Int] = [:]
        for (position, commit) in sorted.enumerated() { index[commit.id] = position }
        let baseCount = base?.count ?? 0
        // Every parent's position in the whole chain.
        func position(_ parent: ObjectID) throws(MissingParentError) -> Int {
            if let local = index[parent] { return baseCount + local }
            if let found = base?.position(of: parent) { return found }
            throw MissingParentError(parent: parent)
        }
        let (levels, corrected) = try generations(sorted, index: index, base: base)

        let width = format.byteCount
        let fanOut = SortedNames.fanOut(firstBytes: sorted.lazy.map(\.id.firstByte))
        var lookup = [UInt8]()
        lookup.reserveCapacity(sorted.count * width)
        for commit in sorted { lookup += commit.id.bytes }
        var data = [UInt8]()
        data.reserveCapacity(sorted.count * (width + 16))
        var edges = [UInt8]()
        var edgeCount = 0
        var generation = [UInt8]()
        var overflow = [UInt8]()
        var overflowCount = 0
        for (local, commit) in sorted.enumerated() {
            data += commit.tree.bytes
            let parents = commit.parents
            append32(&data, parents.isEmpty ? CommitGraphFile.parentNone : UInt32(try position(parents[0])))
            if parents.count <= 1 {
                append32(&data, CommitGraphFile.parentNone)
            } else if parents.count == 2 {
                append32(&data, UInt32(try position(parents[1])))
            } else {
                append32(&data, CommitGraphFile.extraEdges | UInt32(edgeCount))
                for (offset, parent) in parents.dropFirst().enumerated() {
                    let last = offset == parents.count - 2
                    append32(&edges, UInt32(try position(parent)) | (last ? CommitGraphFile.extraEdges : 0))
                    edgeCount += 1
                }
            }
            let date = UInt64(bitPattern: commit.date)
            append32(
                &data, UInt32(truncatingIfNeeded: (date >> 32) & 3) | UInt32(truncatingIfNeeded: levels[local]) << 2)
            append32(&data, UInt32(truncatingIfNeeded: date))
            let offset = corrected[local] - commit.date
            if offset > 0x7fff_ffff {
                append32(&generation, 0x8000_0000 | UInt32(overflowCount))
                append64(&overflow, UInt64(offset))
                overflowCount += 1
            } else {
                append32(&generation, UInt32(offset))
            }
        }
        var chunks: [(id: CommitGraphChunk, bytes: [UInt8])] = [
            (.fanOut, fanOut), (.lookup, lookup), (.commitData, data),
        ]
        if generationData {
            chunks.append((.generationData, generation))
            if overflowCount > 0 { chunks.append((.generationOverflow, overflow)) }
        }
        if edgeCount > 0 { chunks.append((.extraEdges, edges)) }
        let layers = base?.layers ?? []
        if !layers.isEmpty { chunks.append((.baseGraphs, layers.flatMap(\.checksum.bytes))) }

        var file: [UInt8] = Array("CGPH".utf8) + [1, format == .sha1 ? 1 : 2, UInt8(chunks.count), UInt8(layers.count)]
        var offset = UInt64(8 + 12 * (chunks.count + 1))
        for chunk in chunks {
            file += chunk.id.bytes
            append64(&file, offset)
            offset += UInt64(chunk.bytes.count)
        }
        append32(&file, 0)
        append64(&file, offset)
        for chunk in chunks { file += chunk.bytes }
        return file
    }

    /// The topological level and the corrected commit date of each of `sorted`, as git computes
    /// them (`compute_topological_levels`, `compute_generation_numbers`): one more than the
    /// parents' highest level (1 for a root), and the later of the commit's date and one more
    /// than the parents' highest corrected date; parents below in `base` count with the values
    /// stored there.
    private static func generations(_ sorted: [Commit], index: [ObjectID: Int], base: CommitGraphChain?)
        throws(MissingParentError) -> (levels: [Int64], corrected: [Int64])
    {
        var levels = [Int64](repeating: 0, count: sorted.count)
        var corrected = [Int64](repeating: 0, count: sorted.count)
        var done = [Bool](repeating: false, count: sorted.count)
        for start in sorted.indices where !done[start] {
            var stack = [start]
            while let top = stack.last {
                if done[top] {
                    stack.removeLast()
                    continue
                }
                var level: Int64 = 0
                var date: Int64 = 0
                var pending = false
                for parent in sorted[top].parents {
                    if let local = index[parent] {
                        if !done[local] {
                            stack.append(local)
                            pending = true
                            continue
                        }
                        level = max(level, levels[local])
                        date = max(date, corrected[local])
                    } else if let position = base?.position(of: parent), let stored = base?.generations(at: position) {
                        level = max(level, stored.level)
                        date = max(date, stored.correctedDate ?? 0)
                    } else {
                        throw MissingParentError(parent: parent)
                    }
                }
                if pending { continue }
                // git: a commit dated 0 counts as no date.
                if sorted[top].date != 0 && sorted[top].date > date { date = sorted[top].date - 1 }
                levels[top] = min(level + 1, 0x3fff_ffff)
                corrected[top] = date + 1
                done[top] = true
                stack.removeLast()
            }
        }
        return (levels, corrected)
    }

    private static func append32(_ bytes: inout [UInt8], _ value: UInt32) {
        bytes += [UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
    }

    private static func append64(_ bytes: inout [UInt8], _ value: UInt64) {
        append32(&bytes, UInt32(value >> 32))
        append32(&bytes, UInt32(value & 0xffff_ffff))
    }
}
