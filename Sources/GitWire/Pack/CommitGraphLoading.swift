extension CommitGraphChain {
    /// The commit-graph git 2.39 reads for the objects directory `objectsDirectory` and its
    /// alternates `alternates` (its `prepare_commit_graph`): the first of those directories with
    /// a graph, either `info/commit-graph` or the layers listed in
    /// `info/commit-graphs/commit-graph-chain` (each looked for in every directory, as git looks;
    /// the layers up to the first that cannot be read, as git keeps them). Nil when there is
    /// none, or none that can be read.
    ///
    /// Unlike git, every file's trailing checksum is checked here (a few milliseconds for a
    /// graph of 40,000 commits), so a damaged or truncated file is not used at all and the
    /// caller reads the commit objects instead, where git could die on it or use what it says.
    package static func load(objectsDirectory: String, alternates: [String], format: ObjectFormat)
        -> CommitGraphChain?
    {
        let directories = [objectsDirectory] + alternates
        for directory in directories {
            if let single = readLayer("\(directory)/info/commit-graph", format: format),
                let chain = try? CommitGraphChain(layers: [single])
            {
                return chain
            }
            if let chain = loadChain(directory, searching: directories, format: format) { return chain }
        }
        return nil
    }

    /// The split graph of `directory` (its layers found in any of `directories`), or nil.
    private static func loadChain(_ directory: String, searching directories: [String], format: ObjectFormat)
        -> CommitGraphChain?
    {
        guard let text = try? ConfigFiles.read("\(directory)/info/commit-graphs/commit-graph-chain", limit: 1 << 20),
            text.count > format.byteCount * 2
        else { return nil }
        var layers: [CommitGraphFile] = []
        var best: CommitGraphChain?
        for line in text.split(separator: 0x0a, omittingEmptySubsequences: false).prefix(
            text.count / (format.byteCount * 2 + 1))
        {
            guard line.count == format.byteCount * 2, ObjectID(hex: line, format: format) != nil else { break }
            let name = String(decoding: line, as: UTF8.self)
            guard
                let layer = directories.lazy.compactMap({
                    readLayer("\($0)/info/commit-graphs/graph-\(name).graph", format: format)
                }).first,
                layer.checksum.hex == name,
                let chain = try? CommitGraphChain(layers: layers + [layer])
            else { break }
            layers.append(layer)
            best = chain
        }
        return best
    }

    /// The commit-graph file at `path`, parsed and its checksum checked; nil when it is missing
    /// or cannot be used.
    private static func readLayer(_ path: String, format: ObjectFormat) -> CommitGraphFile? {
        guard FileSystem.exists(path), let bytes = try? FileSystem.read(path),
            let file = try? CommitGraphFile(bytes: bytes, format: format)
        else { return nil }
        let (covered, checksum) = file.checksumRange
        let computed = format == .sha1 ? UncheckedSHA1.hash(covered) : SHA256.hash(covered)
        return computed == checksum ? file : nil
    }
}

extension ObjectDatabase {
    /// The repository's commit-graph, as git's push reads it: none when `enabled` is false
    /// (`core.commitGraph`), and none in a shallow repository or one whose `info/grafts` grafts
    /// (git's `commit_graph_compatible`: parents there are not what the graph says). Read once.
    package func commitGraph(enabled: Bool = true) -> CommitGraphChain? {
        guard enabled else { return nil }
        if let loaded = loadedCommitGraph { return loaded }
        var chain: CommitGraphChain?
        let gitDirectory = String(objectsDirectory.dropLast("/objects".count))
        // git: a `shallow` file, even empty, makes the repository shallow; `info/grafts` counts
        // when it grafts anything (a line other than a comment).
        let grafts = (try? ConfigFiles.read("\(gitDirectory)/info/grafts", limit: 1 << 20)) ?? []
        let grafting = grafts.split(separator: 0x0a).contains { !$0.isEmpty && $0.first != UInt8(ascii: "#") }
        if !FileSystem.exists("\(gitDirectory)/shallow"), !grafting {
            chain = CommitGraphChain.load(
                objectsDirectory: objectsDirectory, alternates: alternateDirectories, format: format)
        }
        loadedCommitGraph = .some(chain)
        return chain
    }
}

extension Repository {
    /// git's `core.commitGraph` for this repository (true unless set false; a value that is not
    /// a boolean reads as the default here).
    package var commitGraphEnabled: Bool {
        guard let configuration = try? GitConfiguration.load(gitDirectory: location.gitDirectory),
            let value = try? configuration.bool("core.commitgraph")
        else { return true }
        return value
    }
}
