/// Reads objects from a pack on disk through its index, resolving delta chains without recursion.
public final class PackReader: ObjectSource {
    /// The pack's index.
    public let index: PackIndex
    /// The pack's path.
    public let packPath: String
    let file: File
    private let inflater: Inflater
    /// Objects recently used as delta bases, so that chains sharing a base inflate it once;
    /// shared by the packs of one object database.
    let baseCache: PackBaseCache
    /// This pack's name in `baseCache`.
    private let cacheID: Int
    /// Every entry's offset in pack order, then the trailer's offset: where each entry ends.
    let boundaries: [UInt64]
    /// Bytes of the pack read ahead for entry headers (the push's plan reads the header of every
    /// object sent, mostly in pack order): where they start, and the bytes.
    var headerWindow: (start: UInt64, bytes: [UInt8]) = (0, [])
    /// When set, entries that fit it are read through it (``PackReadWindow``): for a reader
    /// whose next entry mostly lies just after the last (the push's tree reader, which reads
    /// trees in the order git wrote them), one `pread` serves several entries.
    var readWindow: PackReadWindow?

    /// The longest delta chain followed before assuming a loop.
    static let maximumChainLength = 1 << 16

    /// Opens the pack at `packPath`, whose objects are named in `format`, with its index (by
    /// default beside it, `.idx` for `.pack`). The pack must be self-contained, as every pack in a
    /// repository is (thin packs are completed when they are indexed).
    public convenience init(packPath: String, indexPath: String? = nil, format: ObjectFormat) throws {
        try self.init(packPath: packPath, indexPath: indexPath, format: format, baseCache: PackBaseCache())
    }

    /// Opens a pack as `init(packPath:indexPath:format:)` does, keeping the objects its delta
    /// chains are based on in `baseCache`.
    init(packPath: String, indexPath: String?, format: ObjectFormat, baseCache: PackBaseCache) throws {
        self.baseCache = baseCache
        cacheID = baseCache.register()
        index = try PackIndex(path: indexPath ?? PackIndexer.indexPath(forPack: packPath), format: format)
        let width = format.byteCount
        self.packPath = packPath
        file = try File.openForReading(packPath)
        inflater = try Inflater()
        let size = try file.size()
        guard size >= Int64(PackHeader.length + width),
            let header = try PackHeader.parse(file.read(at: 0, count: PackHeader.length)[...])
        else { throw PackError(offset: UInt64(size), .truncated(objectsRead: 0, objectsExpected: UInt32(index.count))) }
        guard Int(header.objectCount) == index.count else {
            throw PackError(offset: 8, .objectCountMismatch(header: header.objectCount, objectsRead: index.count))
        }
        let trailer = try file.read(at: size - Int64(width), count: width)
        guard ObjectID(bytes: trailer, format: format) == index.packChecksum else {
            throw PackError(
                offset: UInt64(size) - UInt64(width),
                .checksumMismatch(
                    expected: index.packChecksum, computed: ObjectID(bytes: trailer, format: format) ?? format.zeroID))
        }
        let trailerOffset = UInt64(size) - UInt64(width)
        let offsets = OffsetSort.sorted((0..<index.count).map(index.offset(at:)))
        // The index is read without its checksum (as git reads it): an offset inside the header
        // or at or past the trailer would make entries that end before they start.
        if let first = offsets.first, let last = offsets.last,
            first < UInt64(PackHeader.length) || last >= trailerOffset
        {
            let index = index
            let position = (0..<index.count).first {
                index.offset(at: $0) < UInt64(PackHeader.length) || index.offset(at: $0) >= trailerOffset
            }!
            throw PackIndexError.offsetOutOfRange(position: position, offset: index.offset(at: position))
        }
        boundaries = offsets + [trailerOffset]
    }

    /// The same pack opened again for another thread: its own inflater and place in
    /// `baseCache`; the file descriptor, the index and the entry boundaries (read, checked and
    /// sorted once) shared with `other`, so it reads the very file `other` checked whatever has
    /// happened to the pack's path since.
    init(reopening other: PackReader, baseCache: PackBaseCache, readWindow: Bool = false) throws {
        self.baseCache = baseCache
        cacheID = baseCache.register()
        index = other.index
        packPath = other.packPath
        boundaries = other.boundaries
        // The descriptor the pack was first opened (and checked) with, not the path again: a
        // repack between the two (git's `repack -d` removes the old packs; a pack of the same
        // name may hold other offsets) cannot make this reader read another file. Reads are
        // positioned (`pread`), so the readers share it safely; as git keeps its packs open.
        file = other.file
        inflater = try Inflater()
        if readWindow { self.readWindow = PackReadWindow(file: file, end: boundaries.last ?? 0) }
    }

    /// The object named `id`, or nil if the pack does not hold it.
    public func object(_ id: ObjectID) throws -> GitObject? {
        guard let offset = index.offset(of: id) else { return nil }
        return try object(atOffset: offset)
    }

    /// Whether the pack holds `id`.
    public func contains(_ id: ObjectID) -> Bool { index.position(of: id) != nil }

    /// The object whose entry starts at `offset`, with its delta chain resolved.
    public func object(atOffset offset: UInt64) throws -> GitObject {
        var deltas: [(offset: UInt64, data: [UInt8])] = []
        var position = offset
        var base: GitObject
        while true {
            guard deltas.count < Self.maximumChainLength else { throw PackError(offset: offset, .deltaChainLoop) }
            if let cached = baseCache.cache.object(at: .init(pack: cacheID, offset: position)) {
                base = cached
                break
            }
            let (header, data) = try readEntry(at: position)
            switch header.kind {
            case .object(let type):
                base = GitObject(type: type, data: data)
                if !deltas.isEmpty { baseCache.cache.insert(base, at: .init(pack: cacheID, offset: position)) }
            case .offsetDelta(let baseOffset):
                deltas.append((position, data))
                position = baseOffset
                continue
            case .referenceDelta(let id):
                deltas.append((position, data))
                guard let baseOffset = index.offset(of: id) else {
                    throw PackError(offset: position, .deltaBaseMissing(.id(id)))
                }
                position = baseOffset
                continue
            }
            break
        }
        // Every object but the one asked for was a base of the next: keep those for the
        // chains that share them.
        for (step, delta) in deltas.enumerated().reversed() {
            do {
                base.data = try Delta.applyNative(delta.data[...], to: base.data[...])
            } catch {
                throw PackError(offset: delta.offset, .badDelta(error))
            }
            if step > 0 { baseCache.cache.insert(base, at: .init(pack: cacheID, offset: delta.offset)) }
        }
        return base
    }

    /// Reads and inflates the entry at `offset`.
    private func readEntry(at offset: UInt64) throws -> (PackEntryHeader, [UInt8]) {
        guard let end = entryEnd(startingAt: offset) else {
            throw PackError(offset: offset, .deltaBaseNotAnEntry(baseOffset: offset))
        }
        return try PackEntryReading.read(
            offset..<end, of: file, format: index.format, with: inflater, window: readWindow)
    }

    /// Where the entry that starts at `offset` ends (the next entry's offset, or the trailer's);
    /// nil if no entry starts there.
    func entryEnd(startingAt offset: UInt64) -> UInt64? {
        entryRank(at: offset).map { boundaries[$0 + 1] }
    }
}

/// The delta base cache of the packs of one object database (git's `core.deltaBaseCacheLimit`),
/// used from one thread at a time, as the readers themselves are.
final class PackBaseCache {
    /// Where an entry is: a pack registered here, and the entry's offset in it.
    struct Key: Hashable {
        var pack: Int
        var offset: UInt64
    }

    /// The default bound, in bytes of object data. git's is 96 MiB for a whole process; the
    /// push delta search opens a database per thread, so each gets less.
    static let defaultLimit = 32 << 20

    var cache: DeltaBaseCache<Key>
    private var packs = 0

    /// A cache of at most `limit` bytes of object data (0 keeps nothing).
    init(limit: Int = PackBaseCache.defaultLimit) { cache = DeltaBaseCache(limit: max(0, limit)) }

    /// A name for a newly opened pack, never given before.
    func register() -> Int {
        packs += 1
        return packs
    }
}
