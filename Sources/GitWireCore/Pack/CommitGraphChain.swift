/// A repository's commit-graph: one ``CommitGraphFile``, or the layers of a split graph, base
/// first (`commit-graphs/commit-graph-chain`), each layer's commits numbered after those of the
/// layers below it, as git numbers them. Answers what a commit's object would (tree, parents,
/// committer date) and its generation, without reading the object.
///
/// A record that names a parent position past the chain's commits, or an extra-edge list that
/// runs off its chunk, is not trusted: ``commit(_:)`` answers nil for it, as for a commit the
/// graph does not list, and the caller reads the commit object (git dies there).
public struct CommitGraphChain: Sendable {
    /// The layers, base first.
    public let layers: [CommitGraphFile]
    /// The position of each layer's first commit.
    private let starts: [Int]
    /// The number of commits in all layers.
    public let count: Int
    /// Whether generations are corrected commit dates (every layer has them, as git requires),
    /// rather than topological levels.
    public let usesCorrectedDates: Bool

    /// What the graph says of one commit.
    public struct Commit: Hashable, Sendable {
        /// The commit's tree.
        public var tree: ObjectID
        /// Its parents, in order.
        public var parents: [ObjectID]
        /// The committer date, in seconds since the epoch (34 bits, as the file stores it).
        public var committerTime: Int64
        /// Its generation: the corrected commit date when ``usesCorrectedDates``, else the
        /// topological level (0 when the file was written without one).
        public var generation: Int64
    }

    /// The chain of `layers` (base first); throws ``CommitGraphError/chainMismatch`` if a
    /// layer's list of base graphs is not the checksums of the layers below it.
    public init(layers: [CommitGraphFile]) throws(CommitGraphError) {
        var starts: [Int] = []
        var total = 0
        for (index, layer) in layers.enumerated() {
            guard layer.baseGraphs == layers[..<index].map(\.checksum), layer.format == layers[0].format else {
                throw .chainMismatch
            }
            starts.append(total)
            total += layer.count
        }
        guard total <= Int(CommitGraphFile.parentNone) else { throw .chainMismatch }
        self.layers = layers
        self.starts = starts
        count = total
        usesCorrectedDates = !layers.isEmpty && layers.allSatisfy(\.hasGenerationData)
    }

    /// The position of `id` in the chain (the newest layer that lists it first), or nil.
    public func position(of id: ObjectID) -> Int? {
        for index in layers.indices.reversed() {
            if let local = layers[index].position(of: id) { return starts[index] + local }
        }
        return nil
    }

    /// The commit id at `position`, or nil past the chain's commits.
    public func id(at position: Int) -> ObjectID? {
        guard let (layer, local) = locate(position) else { return nil }
        return layers[layer].id(at: local)
    }

    /// What the graph says of the commit `id`, or nil when no layer lists it or its record is
    /// not to be trusted.
    public func commit(_ id: ObjectID) -> Commit? {
        position(of: id).flatMap(commit(at:))
    }

    /// What the graph says of the commit at `position`, or nil past the chain's commits or when
    /// its record is not to be trusted (a parent position out of range, an extra-edge list that
    /// does not end inside its chunk, a corrected date whose overflow entry is missing).
    public func commit(at position: Int) -> Commit? {
        guard let (index, local) = locate(position) else { return nil }
        let layer = layers[index]
        let record = layer.record(at: local)
        var parents: [ObjectID] = []
        if record.parent1 != CommitGraphFile.parentNone {
            guard let first = id(at: Int(record.parent1)) else { return nil }
            parents.append(first)
            if record.parent2 & CommitGraphFile.extraEdges != 0 {
                var edge = Int(record.parent2 & 0x7fff_ffff)
                while true {
                    guard let word = layer.extraEdge(edge), let parent = id(at: Int(word & 0x7fff_ffff)) else {
                        return nil
                    }
                    parents.append(parent)
                    if word & CommitGraphFile.extraEdges != 0 { break }
                    edge += 1
                }
            } else if record.parent2 != CommitGraphFile.parentNone {
                guard let second = id(at: Int(record.parent2)) else { return nil }
                parents.append(second)
            }
        }
        var generation = Int64(record.level)
        if usesCorrectedDates {
            guard let corrected = layer.correctedDate(at: local, date: record.date) else { return nil }
            generation = corrected
        }
        return Commit(tree: record.tree, parents: parents, committerTime: record.date, generation: generation)
    }

    /// The topological level and the corrected commit date (nil without generation data) the
    /// graph stores for the commit at `position`, or nil past the chain's commits: what a layer
    /// written on top of this chain computes its own commits' from.
    public func generations(at position: Int) -> (level: Int64, correctedDate: Int64?)? {
        guard let (index, local) = locate(position) else { return nil }
        let record = layers[index].record(at: local)
        return (Int64(record.level), layers[index].correctedDate(at: local, date: record.date))
    }

    /// The layer holding `position` and the position within it.
    private func locate(_ position: Int) -> (Int, Int)? {
        guard position >= 0, position < count else { return nil }
        var index = layers.count - 1
        while starts[index] > position { index -= 1 }
        return (index, position - starts[index])
    }
}
