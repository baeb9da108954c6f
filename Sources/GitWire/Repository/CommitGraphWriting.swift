extension Repository {
    /// Writes a split commit-graph layer for the commits reachable from the refs, as git 2.39's
    /// `write_commit_graph_reachable` with `COMMIT_GRAPH_WRITE_SPLIT` does after a fetch
    /// (`fetch.writeCommitGraph`): the commits not yet in the chain of
    /// `objects/info/commit-graphs/` go into a new layer, which takes in the layers on top of
    /// the chain as long as each holds at most twice as many commits as the new layer has so far
    /// (git's default `size_mult` 2); the layer is written as `graph-<checksum>.graph` (mode
    /// 0444) through a temporary file under the lock of `commit-graph-chain` (taken first, as
    /// git takes it: a lock that is there stops the write), then the chain, and the layers
    /// no longer in the chain are removed. A graph of one file (`objects/info/commit-graph`) is
    /// what git reads first: it stands for the chain's only layer (a chain beside it is ignored,
    /// and its layers removed), and the new layer either takes its commits in (the file is then
    /// deleted) or names it as its base (the file is then renamed `graph-<its checksum>.graph`
    /// in `commit-graphs/`), as git's `write_commit_graph_file` does. Nothing is written when no
    /// commit is new, in a shallow repository, one whose `info/grafts` grafts, one with replace
    /// refs, or when `objects/info` or `objects/info/commit-graphs` is a symbolic link. Without
    /// `generationData` (`commitGraph.generationVersion` 1) the layer has no `GDA2` chunk.
    /// Returns whether a layer was written.
    @discardableResult
    public func writeReachableCommitGraph(generationData: Bool = true) throws -> Bool {
        let objectsDirectory = "\(commonDirectory)/objects"
        let graphs = "\(objectsDirectory)/info/commit-graphs"
        let grafts = (try? ConfigFiles.read("\(commonDirectory)/info/grafts", limit: 1 << 20)) ?? []
        let refs = try self.refs.all()
        guard !FileSystem.exists("\(commonDirectory)/shallow"),
            !grafts.split(separator: 0x0a).contains(where: { !$0.isEmpty && $0.first != UInt8(ascii: "#") }),
            !refs.contains(where: { $0.name.hasPrefix("refs/replace/") }),
            // A directory that is a symbolic link leads outside the repository: nothing is
            // written or removed there (git 2.39 follows it and removes every `*.graph` file
            // it finds, its own or not).
            !FileSystem.isSymbolicLink("\(objectsDirectory)/info"), !FileSystem.isSymbolicLink(graphs)
        else { return false }
        // git's prepare_commit_graph: the file of one graph first, else the chain. A planted
        // layer claiming more commits than the repository has objects is not read (it could be
        // a sparse file of many gigabytes), as the reader does not read it.
        let singlePath = "\(objectsDirectory)/info/commit-graph"
        var chain = CommitGraphChain.load(
            objectsDirectory: objectsDirectory, alternates: [], format: objectFormat,
            allowsCommits: objects.commitGraphAllowance())
        let single = chain?.layers.count == 1 && chain?.layers[0].checksum.bytes == trailingChecksum(of: singlePath)
        if let loaded = chain, loaded.layers.isEmpty || (!single && !FileSystem.exists("\(graphs)/commit-graph-chain"))
        {
            chain = nil
        }
        // The commits reachable from the refs (tags peeled) that the chain does not hold.
        var commits: [CommitGraphWriter.Commit] = []
        var seen = Set<ObjectID>()
        var stack: [ObjectID] = []
        for ref in refs {
            var id = ref.id
            while let object = try? objects.object(id), object.type == .tag,
                let target = try? ObjectLinks.links(of: .tag, data: object.data, format: objectFormat).first?.id
            {
                id = target
            }
            stack.append(id)
        }
        while let id = stack.popLast() {
            guard seen.insert(id).inserted, chain?.position(of: id) == nil,
                let object = try? objects.object(id), object.type == .commit,
                let summary = CommitSummary(commitData: object.data, format: objectFormat),
                let tree = try ObjectLinks.links(of: .commit, data: object.data, format: objectFormat).first?.id
            else { continue }
            commits.append(
                CommitGraphWriter.Commit(id: id, tree: tree, parents: summary.parents, date: summary.committerTime))
            stack += summary.parents
        }
        guard !commits.isEmpty else { return false }
        // git's split_graph_merge_strategy: the layers on top that are small next to the new
        // one are merged into it.
        var kept = chain?.layers ?? []
        var total = commits.count
        var merged: [CommitGraphFile] = []
        while let top = kept.last, top.count <= 2 * total {
            total += top.count
            merged.append(kept.removeLast())
        }
        let base = kept.isEmpty ? nil : try CommitGraphChain(layers: kept)
        if let chain, !merged.isEmpty {
            let start = kept.reduce(0) { $0 + $1.count }
            for position in start..<chain.count {
                guard let id = chain.id(at: position), let commit = chain.commit(at: position) else { continue }
                commits.append(
                    CommitGraphWriter.Commit(
                        id: id, tree: commit.tree, parents: commit.parents, date: commit.committerTime))
            }
        }
        let generationData = generationData && kept.allSatisfy(\.hasGenerationData)
        var bytes = try CommitGraphWriter.layer(
            commits: commits, base: base, format: objectFormat, generationData: generationData)
        let checksum = objectFormat == .sha1 ? UncheckedSHA1.hash(bytes[...]) : SHA256.hash(bytes[...])
        bytes += checksum.bytes
        try FileSystem.makeDirectory("\(objectsDirectory)/info", mode: 0o777)
        try FileSystem.makeDirectory(graphs, mode: 0o777)
        // The chain's lock first, as git takes it: a lock that is there stops the write before
        // any layer is written, in git's words.
        let lock = try lockChain(in: graphs)
        let name = "graph-\(checksum.hex).graph"
        let layers = kept.map(\.checksum.hex) + [checksum.hex]
        do {
            try FileSystem.writeAtomically(
                bytes[...], to: "\(graphs)/\(name)", permissions: 0o444, temporaryPrefix: "tmp_graph_")
            if single, chain != nil {
                // The one-file graph becomes the chain's base, or goes (its commits are in the new
                // layer).
                if kept.isEmpty {
                    try? FileSystem.remove(singlePath)
                } else {
                    try FileSystem.rename(singlePath, to: "\(graphs)/graph-\(kept[0].checksum.hex).graph")
                }
            }
            try lock.write(Array(layers.map { "\($0)\n" }.joined().utf8)[...])
            try lock.close()
            try FileSystem.adjustSharedPermissions("\(graphs)/commit-graph-chain.lock")
            try FileSystem.rename("\(graphs)/commit-graph-chain.lock", to: "\(graphs)/commit-graph-chain")
        } catch {
            try? lock.close()
            try? FileSystem.remove("\(graphs)/commit-graph-chain.lock")
            throw error
        }
        // Only a layer's name (`graph-<checksum>.graph`, a regular file) is removed: git removes
        // any `*.graph` there.
        for file in try FileSystem.contents(ofDirectory: graphs)
        where file.hasPrefix("graph-") && file.hasSuffix(".graph")
            && ObjectID(hex: file.utf8.dropFirst(6).dropLast(6), format: objectFormat) != nil
            && !layers.contains(String(file.dropFirst(6).dropLast(6)))
            && FileSystem.isRegularFile("\(graphs)/\(file)")
        {
            try? FileSystem.remove("\(graphs)/\(file)")
        }
        return true
    }

    /// The last hash's worth of bytes of the file at `path` (a commit-graph's checksum), or nil
    /// when it cannot be read.
    private func trailingChecksum(of path: String) -> [UInt8]? {
        guard FileSystem.status(path)?.isRegularFile == true, let file = try? File.openForReading(path) else {
            return nil
        }
        defer { try? file.close() }
        let count = objectFormat.byteCount
        guard let size = try? file.size(), size >= Int64(count) else { return nil }
        return try? file.read(at: size - Int64(count), count: count)
    }

    /// Takes `commit-graph-chain.lock` as git does: made exclusively (mode 0444), removed if a
    /// signal ends the process; one that is there is git's `Unable to create …: File exists.`
    private func lockChain(in graphs: String) throws -> File {
        let lockPath = "\(graphs)/commit-graph-chain.lock"
        do {
            return try SignalCleanup.deferringSignals {
                let file = try File.create(lockPath, mode: 0o444)
                SignalCleanup.removeFileOnSignal(lockPath)
                return file
            }
        } catch let error as SystemCallError where error.errno == .fileExists {
            throw LockHeldError(lockPath: lockPath)
        }
    }
}
