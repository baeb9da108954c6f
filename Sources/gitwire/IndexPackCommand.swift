import GitWire

/// `gitwire index-pack`: checks a pack, resolves its deltas and writes its `.idx`, like `git index-pack`.
struct IndexPackCommand: Subcommand {
    static let name = "index-pack"
    static let abstract = "Build a pack index (.idx) for a pack, as git index-pack does."
    static let discussion = """
        Prints the pack's checksum (`pack\\t<checksum>` with --stdin). On error prints \
        `fatal: <message>`, exits 128 and leaves no index (nor, with --stdin, pack) behind.
        """

    static var options: [CommandOption<Self>] {
        [
            .flag("v", nil, \.verbose, help: "Show progress on standard error."),
            .value(
                "o", nil, valueName: "index-file", \.indexFile,
                help: "Write the index to <index-file> instead of beside the pack."),
            .flag(nil, "stdin", \.stdin, help: "Read the pack from standard input and write it to <pack-file>."),
            .flag(
                nil, "fix-thin", \.fixThin, help: "Complete a thin pack with bases from the repository (needs --stdin)."
            ),
            .integer(
                nil, "threads", valueName: "n", \.threads,
                help: "Threads resolving deltas (default: as git chooses, from the number of processors)."),
            .value(
                nil, "index-version", valueName: "version[,offset]", \.indexVersion,
                help:
                    "Index version, optionally with the offset above which offsets go to the 8-byte table: 2[,<offset>]."
            ),
            .value(
                nil, "repository", valueName: "git-dir", \.repository,
                help:
                    "The git directory to use (default: the one git would find here, as git does): where a --stdin pack goes, the bases for --fix-thin, the object format."
            ),
            .value(
                nil, "object-format", valueName: "format", \.objectFormatName,
                help: "The hash of the pack's objects, sha1 or sha256 (not with --stdin: the repository's)."),
        ]
    }

    static var arguments: [CommandArgument<Self>] {
        [
            .optional("pack-file", \.packFile, help: "The pack file (must end in .pack).")
        ]
    }

    var verbose = false
    var indexFile: String?
    var stdin = false
    var fixThin = false
    var threads: Int?
    var indexVersion: String?
    var repository: String?
    var objectFormatName: String?
    var packFile: String?

    func execute() throws -> Int32 {
        let options = try makeOptions()
        // As git's index-pack: the pack and index it writes follow `core.sharedRepository` of
        // the repository it runs in (or the global and command-line configuration outside one).
        let here = try? RepositoryLocation.discover()
        try GitConfiguration.load(gitDirectory: here?.gitDirectory).useSharedRepository()
        let display = verbose ? ProgressDisplay(receivingLabel: stdin ? "Receiving objects" : "Indexing objects") : nil
        var handler: PackProgressHandler?
        if let display { handler = { progress in display.show(progress) } }
        let result: PackIndexResult
        if stdin {
            result = try indexStandardInput(options: options, progress: handler)
        } else {
            guard !fixThin else { throw UsageError("the option '--fix-thin' requires '--stdin'") }
            guard let packFile else { throw UsageError("a pack file is required without --stdin") }
            // git's xopen: the file is opened before anything else is said of it.
            do {
                _ = try File.openForReading(packFile)
            } catch let error as SystemCallError {
                throw UsageError("could not open '\(packFile)' for reading: \(error.errno)")
            }
            result = try PackIndexer.indexPack(at: packFile, options: options, progress: handler)
        }
        display?.finish(objectsAdded: result.objectsAdded)
        try Console.writeOutput(stdin ? "pack\t\(result.packChecksum)\n" : "\(result.packChecksum)\n")
        return 0
    }

    private func indexStandardInput(options: PackIndexOptions, progress: PackProgressHandler?) throws -> PackIndexResult
    {
        var options = options
        // The repository: --repository, else the one git would find here (needed for a pack
        // written into it, and for --fix-thin's bases).
        var repositoryDirectory = repository
        if repositoryDirectory == nil && (packFile == nil || fixThin) {
            do {
                repositoryDirectory = try RepositoryLocation.discover().commonDirectory
            } catch let error as RepositoryDiscoveryError {
                if case .notFound = error.reason { throw UsageError("--stdin requires a git repository") }
                throw error
            }
        }
        // The pack is of the repository's format (--object-format is refused with --stdin).
        if let repositoryDirectory {
            options.objectFormat = try Repository.objectFormat(ofGitDirectory: repositoryDirectory)
        }
        let destination: PackDestination
        if let packFile {
            guard !FileSystem.exists(packFile) else { throw UsageError("unable to create '\(packFile)': File exists") }
            destination = .file(packFile)
        } else if let repositoryDirectory {
            destination = .directory("\(repositoryDirectory)/objects/pack")
        } else {
            throw UsageError("--stdin requires a git repository")
        }
        let bases: ObjectDatabase?
        if fixThin, let repositoryDirectory {
            bases = try ObjectDatabase(gitDirectory: repositoryDirectory, format: options.objectFormat)
        } else {
            bases = nil
        }
        // For benchmarks (Tools/bench-early-resolution.sh): what resolving while receiving did.
        if options.resolvesWhileReceiving && Environment.value("GITWIRE_REPORT_EARLY_RESOLUTION") == "1" {
            options.earlyResolutionProbe = EarlyResolutionProbe(waitsAfterEachChunk: false)
        }
        let indexer = try PackIndexer(destination: destination, options: options, progress: progress)
        let input = File.standardInput()
        while true {
            let chunk = try input.read(upTo: 1 << 16)
            if chunk.isEmpty { break }
            try indexer.append(chunk)
        }
        let result = try indexer.finish(externalBases: bases)
        if let probe = options.earlyResolutionProbe {
            let stop = probe.queueFullAfter.map { ", stopped after \($0) batches (queue full)" } ?? ""
            Console.writeError(
                "early resolution: \(probe.resolvedAtEndOfInput ?? 0) deltas resolved when the input ended, "
                    + "\(probe.resultsUsed) not resolved again, \(result.resolution.deltasApplied) applications in all\(stop)\n"
            )
        }
        return result
    }

    private func makeOptions() throws -> PackIndexOptions {
        var options = PackIndexOptions(threads: try threadCount())
        options.indexPath = indexFile
        if let objectFormatName {
            guard let format = ObjectFormat(objectFormatName) else {
                throw UsageError("unknown hash algorithm '\(objectFormatName)'")
            }
            guard !stdin else { throw UsageError("options '--object-format' and '--stdin' cannot be used together") }
            options.objectFormat = format
        }
        if let indexVersion {
            let parts = indexVersion.split(separator: ",", maxSplits: 1)
            guard parts.first == "2" else { throw UsageError("unsupported index version '\(indexVersion)' (only 2)") }
            if parts.count == 2 {
                guard let limit = parseNumber(parts[1]), limit & 0x8000_0000 == 0 else {
                    throw UsageError("bad index version '\(indexVersion)'")
                }
                options.largeOffsetThreshold = limit
            }
        }
        return options
    }

    /// The most threads `--threads` takes: more only split the base cache into slivers (git tries
    /// to start them all and runs out of file descriptors).
    static let maximumThreads = 256

    /// The thread count: the option, or git's default for the number of processors.
    private func threadCount() throws -> Int {
        if let threads {
            guard threads >= 0, threads <= Self.maximumThreads else {
                throw UsageError("invalid number of threads specified (\(threads))")
            }
            if threads > 0 { return threads }
        }
        let processors = WorkerThreads.processorCount
        switch processors {
        case ..<4: return processors
        case ..<6: return 3
        case ..<40: return processors / 2
        default: return 20
        }
    }

    /// A number in decimal, or hex with `0x`, or octal with a leading `0`, as `strtoul` reads it.
    private func parseNumber(_ text: Substring) -> UInt64? {
        if text.hasPrefix("0x") || text.hasPrefix("0X") { return UInt64(text.dropFirst(2), radix: 16) }
        if text.hasPrefix("0") && text.count > 1 { return UInt64(text.dropFirst(), radix: 8) }
        return UInt64(text)
    }
}

/// A usage mistake, reported as `fatal: <message>`.
struct UsageError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}
