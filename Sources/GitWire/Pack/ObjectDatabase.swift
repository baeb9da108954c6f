/// A repository's objects: loose objects and the packs in `objects/pack`, read by name. Supplies
/// external bases to complete thin packs, and objects to walk local history.
public final class ObjectDatabase: ObjectSource {
    /// The repository's `objects` directory.
    public let objectsDirectory: String
    /// The format objects are named in.
    public let format: ObjectFormat
    /// The loose objects.
    public let loose: LooseObjectStore
    private(set) var packs: [PackReader] = []
    /// The objects recently used as delta bases in any of the packs.
    private let baseCache: PackBaseCache

    /// Opens the objects of the git directory `gitDirectory` (a bare repository or a `.git`),
    /// named in `format`; by default in the format its `config` declares.
    public init(gitDirectory: String, format: ObjectFormat? = nil) throws {
        objectsDirectory = "\(gitDirectory)/objects"
        let format = try format ?? Repository.objectFormat(ofGitDirectory: gitDirectory)
        self.format = format
        loose = LooseObjectStore(objectsDirectory: objectsDirectory, format: format)
        baseCache = PackBaseCache()
        guard FileSystem.isDirectory(objectsDirectory) else {
            throw SystemCallError("open \(objectsDirectory)", .noSuchFile)
        }
        try reloadPacks()
    }

    /// The same objects opened again for another thread (readers are used by one thread at a
    /// time): the packs' indexes are shared, not read and checked again, and the new database
    /// has a delta base cache of its own of at most `baseCacheLimit` bytes.
    package func reopened(baseCacheLimit: Int = PackBaseCache.defaultLimit) throws -> ObjectDatabase {
        try ObjectDatabase(reopening: self, baseCacheLimit: baseCacheLimit)
    }

    private init(reopening other: ObjectDatabase, baseCacheLimit: Int) throws {
        objectsDirectory = other.objectsDirectory
        format = other.format
        loose = LooseObjectStore(objectsDirectory: objectsDirectory, format: format)
        baseCache = PackBaseCache(limit: baseCacheLimit)
        packs = try other.packs.map { try PackReader(reopening: $0, baseCache: baseCache) }
    }

    /// Looks again for packs in `objects/pack`, as after a fetch added one.
    public func reloadPacks() throws {
        let directory = "\(objectsDirectory)/pack"
        guard FileSystem.isDirectory(directory) else {
            packs = []
            return
        }
        let names = try FileSystem.contents(ofDirectory: directory).filter { $0.hasSuffix(".idx") }.sorted()
        packs = try names.compactMap { name in
            let packPath = "\(directory)/\(name.dropLast(4)).pack"
            guard FileSystem.exists(packPath) else { return nil }
            return try PackReader(
                packPath: packPath, indexPath: "\(directory)/\(name)", format: format, baseCache: baseCache)
        }
    }

    /// The object named `id`, from a pack or loose, or nil if the repository does not have it.
    public func object(_ id: ObjectID) throws -> GitObject? {
        for pack in packs {
            if let object = try pack.object(id) { return object }
        }
        return try loose.object(id)
    }

    /// Whether the repository has the object `id`.
    public func contains(_ id: ObjectID) -> Bool {
        packs.contains { $0.contains(id) } || loose.contains(id)
    }

    /// How many objects the packs hold (git's `approximate_object_count`, which leaves loose
    /// objects out).
    package var packedObjectCount: Int { packs.reduce(0) { $0 + $1.index.count } }

    /// How many hex digits of `id` git shows (`find_unique_abbrev`): `minimum`, or more until no
    /// other object here starts with the same digits.
    package func uniqueAbbreviationLength(of id: ObjectID, minimum: Int) -> Int {
        var length = min(max(minimum, 0), 40)
        guard length < 40 else { return 40 }
        let hex = id.hexBytes
        func extend(with other: ObjectID) {
            guard other != id else { return }
            let theirs = other.hexBytes
            var common = 0
            while common < 40 && hex[common] == theirs[common] { common += 1 }
            length = max(length, min(common + 1, 40))
        }
        for pack in packs {
            let index = pack.index
            let low = partitionPoint(in: 0..<index.count) { index.id(at: $0) < id }
            for position in [low - 1, low, low + 1] where position >= 0 && position < index.count {
                extend(with: index.id(at: position))
            }
        }
        let directory = "\(objectsDirectory)/\(String(decoding: hex[0..<2], as: UTF8.self))"
        for name in (try? FileSystem.contents(ofDirectory: directory)) ?? [] {
            if let other = ObjectID(hex: Array(hex[0..<2]) + Array(name.utf8), format: format) { extend(with: other) }
        }
        return length
    }
}
