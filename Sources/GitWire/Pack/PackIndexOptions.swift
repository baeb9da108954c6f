/// Where a ``PackIndexer`` puts the pack it receives.
public enum PackDestination: Sendable, Equatable {
    /// At this path, which must end in `.pack`; the index goes beside it with `.idx` instead.
    case file(String)
    /// In this directory, named after the pack's checksum: `pack-<checksum>.pack` and `.idx`, as in
    /// a repository's `objects/pack`.
    case directory(String)
}

/// How a ``PackIndexer`` works.
public struct PackIndexOptions: Sendable {
    /// Threads resolving deltas.
    public var threads: Int
    /// Bytes of base objects all threads together may keep while resolving deltas.
    public var baseCacheLimit: Int
    /// Offsets above this go to the index's 8-byte offset table (git's `--index-version=2,<offset>`).
    public var largeOffsetThreshold: UInt64
    /// Where to write the index instead of beside the pack (git's `-o`).
    public var indexPath: String?
    /// The hash that names the pack's objects and checks it (git's `--object-format`): the
    /// repository's format. It sets the width of reference-delta bases, the trailer and the
    /// index's names and checksums.
    public var objectFormat: ObjectFormat
    /// Records what the pack's commits, trees and tags name while it is indexed, for a
    /// connectivity check that needs no second pass over the pack.
    package var links: LinkCollector?
    /// Whether offset deltas of a pack received through ``PackIndexer/append(_:)-(ArraySlice<UInt8>)``
    /// are resolved on a thread of their own while it arrives (``EarlyDeltaResolver``). Off
    /// unless the environment has `GITWIRE_RESOLVE_WHILE_RECEIVING=1`: an experiment whose peak
    /// memory on git.git's clone is above git's (Documentation/Performance.md, "Resolving deltas
    /// while the pack arrives").
    package var resolvesWhileReceiving = Self.resolvesWhileReceivingByDefault

    /// Whether `GITWIRE_RESOLVE_WHILE_RECEIVING=1` was in the environment when first asked.
    package static let resolvesWhileReceivingByDefault = Environment.value("GITWIRE_RESOLVE_WHILE_RECEIVING") == "1"
    /// For tests: what the early resolution did, and whether the parser waits for it.
    package var earlyResolutionProbe: EarlyResolutionProbe?

    /// Makes options; by default one thread per processor, a 16 MiB base cache, git's offset
    /// threshold, the index beside the pack and SHA-1.
    public init(
        threads: Int = WorkerThreads.processorCount, baseCacheLimit: Int = 16 << 20,
        largeOffsetThreshold: UInt64 = PackIndexWriter.defaultLargeOffsetThreshold, indexPath: String? = nil,
        objectFormat: ObjectFormat = .sha1
    ) {
        self.objectFormat = objectFormat
        self.threads = threads
        self.baseCacheLimit = baseCacheLimit
        self.largeOffsetThreshold = largeOffsetThreshold
        self.indexPath = indexPath
    }
}

/// What indexing a pack made.
public struct PackIndexResult: Sendable, Equatable {
    /// The pack's checksum (its last 20 or 32 bytes), which git prints and names packs after.
    public var packChecksum: ObjectID
    /// The number of objects in the pack, including any added to complete a thin pack.
    public var objectCount: Int
    /// The final path of the pack.
    public var packPath: String
    /// The final path of the index.
    public var indexPath: String
    /// The number of objects appended from external bases to complete a thin pack.
    public var objectsAdded: Int
    /// How delta resolution went: the deltas applied (once each) and the base bytes that did not
    /// fit the cache and went to the spill file.
    package var resolution = DeltaResolutionStatistics()
}

/// What delta resolution did, for tests and benchmarks.
package struct DeltaResolutionStatistics: Sendable, Equatable {
    /// Delta applications, rebuilds included: the number of deltas when nothing is done twice.
    package var deltasApplied = 0
    /// Bytes of base data written to the spill file.
    package var bytesSpilled: Int64 = 0

    package init() {}

    /// Adds the counts of another resolver.
    package mutating func add(_ other: DeltaResolutionStatistics) {
        deltasApplied += other.deltasApplied
        bytesSpilled += other.bytesSpilled
    }
}
