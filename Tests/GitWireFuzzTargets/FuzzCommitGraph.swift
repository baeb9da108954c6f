import GitWire

/// Commit-graph files: parsed, every record read through a chain of that one layer.
enum FuzzCommitGraph {
    static func run(_ data: [UInt8]) {
        var input = FuzzInput(data)
        let flags = input.byte()
        let format: ObjectFormat = flags & 1 != 0 ? .sha256 : .sha1
        let bytes = input.rest()
        guard let file = try? CommitGraphFile(bytes: bytes, format: format) else { return }
        fuzzInvariant(file.count * (format.byteCount * 2 + 16) <= bytes.count, "more commits than the file holds")
        guard let chain = try? CommitGraphChain(layers: [file]) else {
            fuzzInvariant(!file.baseGraphs.isEmpty, "a graph of one file refused as a chain")
            return
        }
        fuzzInvariant(chain.count == file.count, "chain count")
        fuzzInvariant(chain.commit(at: -1) == nil && chain.commit(at: chain.count) == nil, "a commit out of range")
        var ids: Set<ObjectID> = []
        for position in 0..<min(file.count, 4096) {
            let id = file.id(at: position)
            fuzzInvariant(chain.id(at: position) == id, "chain id")
            ids.insert(id)
            if let found = chain.position(of: id) {
                fuzzInvariant(chain.id(at: found) == id, "a lookup found another id")
            }
        }
        for position in 0..<min(file.count, 4096) {
            guard let commit = chain.commit(at: position) else { continue }
            fuzzInvariant(commit.tree.format == format, "a tree of another format")
            fuzzInvariant(commit.committerTime >= 0 && commit.committerTime < 1 << 34, "a date past 34 bits")
            // Parents are commits of the graph.
            if file.count <= 4096 {
                fuzzInvariant(commit.parents.allSatisfy(ids.contains), "a parent the graph does not list")
            }
        }
        for other in ObjectFormat.allCases { _ = chain.commit(other.zeroID) }
    }
}
