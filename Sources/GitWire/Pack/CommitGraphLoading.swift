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
    ///
    /// git maps the file and touches only the pages it reads; gitwire reads it whole. So that a
    /// planted file (say a sparse one of many gigabytes, whose checksum can be made valid)
    /// cannot make it read more than the repository justifies, a file that is not a regular
    /// one, whose fan-out lists a number of commits `allowsCommits` refuses (more than the
    /// repository's objects number) or that is larger than ``largestGraphSize(commits:)`` is not read, and
    /// the commit objects are read instead.
    package static func load(
        objectsDirectory: String, alternates: [String], format: ObjectFormat,
        allowsCommits: (Int) -> Bool = { _ in true }
    ) -> CommitGraphChain? {
        let directories = [objectsDirectory] + alternates
        for directory in directories {
            if let single = readLayer("\(directory)/info/commit-graph", format: format, allowsCommits: allowsCommits),
                let chain = try? CommitGraphChain(layers: [single])
            {
                return chain
            }
            if let chain = loadChain(directory, searching: directories, format: format, allowsCommits: allowsCommits) {
                return chain
            }
        }
        return nil
    }

    /// The largest commit-graph file read for `commits` commits: 1 MiB, and 1 KiB a commit. A
    /// file git writes holds about 60 bytes a commit (ids, parents, dates, generations), plus
    /// changed-path filters of at most 640 bytes a commit (512 paths at 10 bits; a commit that
    /// changes more gets a 1-byte filter) and 4 bytes for each parent after the second.
    package static func largestGraphSize(commits: Int) -> Int {
        (1 << 20) + min(max(commits, 0), Int(UInt32.max)) * 1024
    }

    /// The split graph of `directory` (its layers found in any of `directories`), or nil.
    private static func loadChain(
        _ directory: String, searching directories: [String], format: ObjectFormat,
        allowsCommits: (Int) -> Bool
    ) -> CommitGraphChain? {
        let chainFile = "\(directory)/info/commit-graphs/commit-graph-chain"
        guard FileSystem.status(chainFile)?.isRegularFile == true,
            let text = try? ConfigFiles.read(chainFile, limit: 1 << 20), text.count > format.byteCount * 2
        else { return nil }
        var layers: [CommitGraphFile] = []
        var best: CommitGraphChain?
        for line in text.split(separator: 0x0a, omittingEmptySubsequences: false).prefix(
            text.count / (format.byteCount * 2 + 1))
        {
            guard line.count == format.byteCount * 2, ObjectID(hex: line, format: format) != nil else { break }
            let name = String(decoding: line, as: UTF8.self)
            var found: CommitGraphFile?
            for searched in directories where found == nil {
                found = readLayer(
                    "\(searched)/info/commit-graphs/graph-\(name).graph", format: format, allowsCommits: allowsCommits)
            }
            guard let layer = found, layer.checksum.hex == name,
                let chain = try? CommitGraphChain(layers: layers + [layer])
            else { break }
            layers.append(layer)
            best = chain
        }
        return best
    }

    /// The commit-graph file at `path`, parsed and its checksum checked; nil when it is missing
    /// or cannot be used (not a regular file, a number of commits `allowsCommits` refuses, larger
    /// than ``largestGraphSize(commits:)``: the header, chunk table and fan-out are read first).
    private static func readLayer(_ path: String, format: ObjectFormat, allowsCommits: (Int) -> Bool)
        -> CommitGraphFile?
    {
        guard FileSystem.status(path)?.isRegularFile == true, let file = try? File.openForReading(path) else {
            return nil
        }
        defer { try? file.close() }
        guard let size = try? file.size(), let header = try? file.read(at: 0, count: 8), header.count == 8,
            let table = try? file.read(at: 8, count: (Int(header[6]) + 1) * 12),
            let commits = CommitGraphFile.commitCount(
                table: table[...], chunkCount: Int(header[6]),
                read: { offset in
                    guard let offset = Int64(exactly: offset) else { return [] }
                    return (try? file.read(at: offset, count: 4)) ?? []
                }),
            size <= Int64(largestGraphSize(commits: commits)), allowsCommits(commits),
            let bytes = try? file.read(at: 0, count: Int(size)), bytes.count == Int(size),
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
                objectsDirectory: objectsDirectory, alternates: alternateDirectories, format: format,
                allowsCommits: commitGraphAllowance())
        }
        loadedCommitGraph = .some(chain)
        return chain
    }

    /// Whether a commit-graph file may list a number of commits: a graph lists commits the
    /// repository has, so no more than its objects (the loose ones counted only when the
    /// packs' are too few). What bounds how much of a planted graph is read.
    package func commitGraphAllowance() -> (Int) -> Bool {
        let packed = packedObjectCount
        var loose: Int?
        return { commits in
            if commits <= packed { return true }
            if loose == nil { loose = self.looseObjectCount() }
            return commits <= packed + loose!
        }
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
