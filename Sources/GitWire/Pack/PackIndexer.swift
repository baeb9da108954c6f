/// Reads a pack as it streams in, writes it through to disk, then resolves its deltas on several
/// threads and writes its version 2 index, byte for byte as `git index-pack` would.
///
/// Feed it with ``append(_:)-(ArraySlice<UInt8>)`` in any chunking, then call
/// ``finish(externalBases:)``. Memory stays bounded: a few dozen bytes per object plus the base
/// cache, never the whole pack or a whole object from the stream. Nothing is left behind unless
/// everything checks out: the pack and index are written under temporary names and renamed at the
/// end; on an error, or if the indexer is dropped unfinished, the temporary files are removed.
public final class PackIndexer {
    private enum Source {
        /// Bytes arrive through `append` and are written to a temporary pack file.
        case received(File, PackDestination)
        /// The pack is already on disk at this path.
        case existing(String)
    }

    private let source: Source
    private let options: PackIndexOptions
    private let progress: PackProgressHandler?
    private let parser: PackStreamParser
    private var receiving: ProgressCounter?
    private var bytesRead: UInt64 = 0
    private var isDone = false
    private var temporaryPaths: [String] = []
    /// Resolves offset deltas while the pack arrives; made at the first entry.
    private var early: EarlyDeltaResolver?
    private var earlyTried = false
    /// The deltas the early resolver named, one bit an entry: their names are in the parser's
    /// table (or, once the input ended, in the table taken from it).
    private var namedEarly: [UInt64] = []

    /// Makes an indexer that writes the pack it receives to `destination`, reporting progress
    /// to `progress`.
    public init(
        destination: PackDestination, options: PackIndexOptions = PackIndexOptions(),
        progress: PackProgressHandler? = nil
    ) throws {
        let directory: String
        switch destination {
        case .file(let path):
            _ = try Self.indexPath(forPack: path)
            directory = FileSystem.parentDirectory(of: path)
        case .directory(let path):
            directory = path
        }
        let file = try File.createTemporary(in: directory, prefix: "tmp_pack_")
        source = .received(file, destination)
        temporaryPaths = [file.path]
        self.options = options
        self.progress = progress
        parser = try PackStreamParser(format: options.objectFormat)
        parser.links = options.links
        parser.onObject = { [unowned self] count in self.objectRead(count) }
        if options.resolvesWhileReceiving {
            parser.onEntry = { [unowned self] entry in self.entryRecorded(entry) }
        }
    }

    private init(existing path: String, options: PackIndexOptions, progress: PackProgressHandler?) throws {
        _ = try Self.indexPath(forPack: path)
        source = .existing(path)
        self.options = options
        self.progress = progress
        parser = try PackStreamParser(format: options.objectFormat)
        parser.links = options.links
        parser.onObject = { [unowned self] count in self.objectRead(count) }
    }

    deinit { if !isDone { removeTemporaryFiles() } }

    /// Indexes the pack already at `path` (which must end in `.pack`), writing its index beside it
    /// (or at `options.indexPath`), as `git index-pack <path>` does.
    public static func indexPack(
        at path: String, options: PackIndexOptions = PackIndexOptions(), progress: PackProgressHandler? = nil
    ) throws -> PackIndexResult {
        let indexer = try PackIndexer(existing: path, options: options, progress: progress)
        let file = try File.openForReading(path)
        let chunkBytes = PackMemorySizing.readChunkBytes(packBytes: UInt64(max(0, try file.size())))
        var offset: Int64 = 0
        while true {
            let chunk = try file.read(at: offset, count: chunkBytes)
            if chunk.isEmpty { break }
            try indexer.append(chunk[...])
            offset += Int64(chunk.count)
        }
        return try indexer.finish()
    }

    /// Takes the next bytes of the pack (side-band already stripped), in any chunking.
    public func append(_ bytes: ArraySlice<UInt8>) throws {
        guard !isDone else { throw PackIndexerError.alreadyFinished }
        do {
            if case .received(let file, _) = source { try file.write(bytes) }
            bytesRead += UInt64(bytes.count)
            try parser.append(bytes)
            if let early {
                early.flush()
                early.takeNames { index, id in
                    parser.nameEntry(Int(index), id)
                    markNamedEarly(index)
                }
            }
        } catch {
            early?.inputEnded()
            let reported = firstFailure(error) { parser.firstRefusedDeltaStream(before: $0, packPath: packPath) }
            fail()
            throw reported
        }
    }

    /// Takes the next bytes of the pack (side-band already stripped), in any chunking.
    public func append(_ bytes: [UInt8]) throws { try append(bytes[...]) }

    /// Ends the input: checks the trailer, resolves every delta, completes a thin pack from
    /// `externalBases` if it needs that (appending each missing base as a whole object and rewriting
    /// the header and trailer, as `git index-pack --fix-thin` does), writes the index and moves pack
    /// and index to their final names.
    public func finish(externalBases: (any ObjectSource)? = nil) throws -> PackIndexResult {
        guard !isDone else { throw PackIndexerError.alreadyFinished }
        do {
            let result = try complete(externalBases: externalBases)
            isDone = true
            return result
        } catch {
            fail()
            throw error
        }
    }

    private func complete(externalBases: (any ObjectSource)?) throws -> PackIndexResult {
        early?.inputEnded()
        let packChecksum: ObjectID
        do { packChecksum = try parser.finish() } catch {
            throw firstFailure(error) { parser.firstRefusedDeltaStream(before: $0, packPath: packPath) }
        }
        receiving?.report(bytes: bytesRead)
        var table = parser.takeTable()
        parser.releaseBuffers()
        do {
            return try resolveAndWrite(table: &table, packChecksum: packChecksum, externalBases: externalBases)
        } catch {
            // The first pass accepted every entry, so git, which reads every stream then, would
            // have failed at a delta stream zlib refuses wherever it is.
            throw firstFailure(error) { _ in
                PackEntryReading.firstRefusedDeltaStream(in: table, before: .max, packPath: packPath)
            }
        }
    }

    /// The path of the pack being indexed (the temporary file while it is received).
    private var packPath: String {
        switch source {
        case .received(let file, _): return file.path
        case .existing(let path): return path
        }
    }

    /// What to report for `error`, met after the first pass has read the pack up to its offset:
    /// the first delta stream before that offset that zlib refuses (`refusedStream`), if any,
    /// since git, reading every stream in order in its first pass, would have stopped there.
    /// Errors other than a ``PackError`` (the file system's, say) are reported as they are.
    private func firstFailure(_ error: any Error, refusedStream: (UInt64) -> PackError?) -> any Error {
        guard let packError = error as? PackError else { return error }
        return refusedStream(packError.offset) ?? error
    }

    private func resolveAndWrite(
        table: inout PackEntryTable, packChecksum: ObjectID, externalBases: (any ObjectSource)?
    ) throws -> PackIndexResult {
        var packChecksum = packChecksum
        let deltaCount = table.offsetDeltas.count + table.referenceDeltas.count
        // The early results are used only once the first pass has accepted the whole pack.
        var resolvedEarly: [Int32] = []
        var statistics = DeltaResolutionStatistics()
        if let earlyResolver = early {
            early = nil
            // Freed with the resolver here, before the final walk.
            let outcome = earlyResolver.finish()
            earlyResolver.takeNames { index, id in
                table.ids[Int(index)] = id
                markNamedEarly(index)
            }
            resolvedEarly = Self.takeEarlyResults(named: namedEarly, usable: outcome != nil, into: &table)
            namedEarly = []
            if let outcome {
                statistics = outcome.statistics
                options.earlyResolutionProbe?.resultsUsed(resolvedEarly.count)
            }
        }
        let threads = max(1, options.threads)
        let resolving = ProgressCounter(phase: .resolving, total: deltaCount, handler: progress)
        var objectsAdded = 0
        if deltaCount > 0 {
            resolving.start()
            let plan = DeltaResolutionPlan(
                packPath: packPath, table: &table, cacheLimitPerThread: max(1, options.baseCacheLimit / threads))
            let claims = OnceFlags(count: table.count)
            for index in resolvedEarly {
                _ = claims.claim(Int(index))
                resolving.advance()
            }
            resolvedEarly = []
            var ids = ObjectIDArray(format: table.format)
            swap(&ids, &table.ids)
            let walked: DeltaResolutionStatistics
            (table.ids, walked) = try ParallelDeltaResolver.resolve(
                plan: plan, claims: claims, threads: threads, progress: resolving, ids: consume ids,
                links: options.links)
            statistics.add(walked)
            if resolving.count < deltaCount, let externalBases, case .received(let file, _) = source {
                let completion = ThinPackCompletion(
                    plan: plan, claims: claims, file: file, header: parser.header!, checksum: packChecksum,
                    progress: resolving,
                    links: options.links)
                packChecksum = try completion.complete(&table, from: externalBases)
                objectsAdded = completion.objectsAdded
                statistics.add(completion.statistics)
            }
            if resolving.count < deltaCount { throw Self.unresolvedError(table, plan: plan) }
        }
        let order = try PackIndexWriter.sortedOrder(ids: table.ids, offsets: table.offsets)
        var result = try writeFinalFiles(
            table: table, order: order, packChecksum: packChecksum, objectsAdded: objectsAdded)
        result.resolution = statistics
        return result
    }

    private func writeFinalFiles(
        table: PackEntryTable, order: [Int32], packChecksum: ObjectID, objectsAdded: Int
    ) throws -> PackIndexResult {
        let finalPackPath: String
        switch source {
        case .received(_, .file(let path)), .existing(let path): finalPackPath = path
        case .received(_, .directory(let directory)): finalPackPath = "\(directory)/pack-\(packChecksum.hex).pack"
        }
        let finalIndexPath = try options.indexPath ?? Self.indexPath(forPack: finalPackPath)
        let index = try File.createTemporary(in: FileSystem.parentDirectory(of: finalIndexPath), prefix: "tmp_idx_")
        temporaryPaths.append(index.path)
        try PackIndexWriter.write(
            ids: table.ids, crc32s: table.crc32s, offsets: table.offsets, order: order, packChecksum: packChecksum,
            largeOffsetThreshold: options.largeOffsetThreshold
        ) { try index.write($0) }
        try index.sync()
        try index.setCreationPermissions(0o444)
        try index.close()
        if case .received(let pack, _) = source {
            try pack.sync()
            try pack.setCreationPermissions(0o444)
            try pack.close()
            try FileSystem.rename(pack.path, to: finalPackPath)
        }
        try FileSystem.rename(index.path, to: finalIndexPath)
        temporaryPaths = []
        return PackIndexResult(
            packChecksum: packChecksum, objectCount: table.count, packPath: finalPackPath, indexPath: finalIndexPath,
            objectsAdded: objectsAdded)
    }

    /// Hands an entry the first pass recorded to the early resolver, starting it at the first.
    private func entryRecorded(_ entry: ReceivedEntry) {
        if !earlyTried, case .received(let file, _) = source {
            earlyTried = true
            early = EarlyDeltaResolver(
                packPath: file.path, format: options.objectFormat, objectCount: Int(parser.expectedCount),
                links: options.links, probe: options.earlyResolutionProbe)
        }
        early?.add(entry)
    }

    /// Notes that delta entry `index` was named early.
    private func markNamedEarly(_ index: Int32) {
        let word = Int(index) >> 6
        if word >= namedEarly.count {
            // Grows with the entries that arrive, not with the count the header claims.
            namedEarly.append(
                contentsOf: repeatElement(0, count: max(word + 1, namedEarly.count * 2) - namedEarly.count))
        }
        namedEarly[word] |= 1 << UInt64(index & 63)
    }

    /// Of the deltas named early (`named`, one bit an entry, their names in `table`), takes those
    /// whose whole subtree was resolved early too, and on which no reference delta may be based:
    /// removes them from `table`'s offset deltas, so that the final resolution neither sees nor
    /// counts them, and returns their entry indices. The names of the others are cleared: they are
    /// resolved again (from their tree's root) with the deltas left, as if there had been no early
    /// resolution; so are all when the early results are not `usable` (its thread failed).
    static func takeEarlyResults(named: [UInt64], usable: Bool, into table: inout PackEntryTable) -> [Int32] {
        guard named.contains(where: { $0 != 0 }) else { return [] }
        var done = [Bool](repeating: false, count: table.count)
        var earlyCount = 0
        for (word, bits) in named.enumerated() where bits != 0 {
            for bit in 0..<64 where bits >> UInt64(bit) & 1 != 0 && word * 64 + bit < table.count {
                done[word * 64 + bit] = usable
                earlyCount += 1
            }
        }
        if usable && !table.referenceDeltas.isEmpty {
            var bases = ObjectIDSet()
            for link in table.referenceDeltas { bases.insert(link.base) }
            for index in done.indices where done[index] && bases.contains(table.ids[index]) { done[index] = false }
        }
        // A delta comes after its base, and the links are in the order of their deltas: from the
        // last, a delta not done marks its base not done before the base's own link is seen.
        for link in table.offsetDeltas.reversed() where !done[Int(link.delta)] { done[Int(link.base)] = false }
        var taken: [Int32] = []
        taken.reserveCapacity(earlyCount)
        for (word, bits) in named.enumerated() where bits != 0 {
            for bit in 0..<64 where bits >> UInt64(bit) & 1 != 0 && word * 64 + bit < table.count {
                let index = word * 64 + bit
                if done[index] {
                    taken.append(Int32(index))
                } else {
                    table.ids[index] = table.format.zeroID
                }
            }
        }
        table.offsetDeltas.removeAll { done[Int($0.delta)] }
        return taken
    }

    private func objectRead(_ count: Int) {
        if receiving == nil {
            receiving = ProgressCounter(phase: .receiving, total: Int(parser.expectedCount), handler: progress)
        }
        receiving?.advance(bytes: bytesRead)
    }

    private func fail() {
        isDone = true
        removeTemporaryFiles()
    }

    private func removeTemporaryFiles() {
        // The early thread reads the temporary pack: it stops before the file goes.
        _ = early?.finish()
        early = nil
        for path in temporaryPaths { try? FileSystem.remove(path) }
        temporaryPaths = []
    }

    /// The error for a pack whose deltas did not all resolve: the first reference delta whose base
    /// is nowhere, or a loop.
    private static func unresolvedError(_ table: PackEntryTable, plan: DeltaResolutionPlan) -> PackError {
        let known = Set(table.ids)
        for link in plan.referenceChildren.inPackOrder() where !known.contains(link.base) {
            return PackError(offset: table.offsets[Int(link.delta)], .deltaBaseMissing(.id(link.base)))
        }
        let first = table.ids.indices.first { table.isDelta($0) && table.ids[$0].isZero } ?? 0
        return PackError(offset: table.offsets[first], .deltaChainLoop)
    }

    /// The index path git uses for a pack: `.pack` replaced by `.idx`.
    static func indexPath(forPack path: String) throws -> String {
        guard path.hasSuffix(".pack") else { throw PackIndexerError.notAPackName(path) }
        return String(path.dropLast(5)) + ".idx"
    }

}
