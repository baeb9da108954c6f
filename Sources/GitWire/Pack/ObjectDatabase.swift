/// A repository's objects: loose objects and the packs in `objects/pack`, and those of its
/// alternate object stores (`objects/info/alternates`, `GIT_ALTERNATE_OBJECT_DIRECTORIES`), read
/// by name. Supplies external bases to complete thin packs, and objects to walk local history.
public final class ObjectDatabase: ObjectSource {
    /// The repository's `objects` directory.
    public let objectsDirectory: String
    /// The format objects are named in.
    public let format: ObjectFormat
    /// The loose objects.
    public let loose: LooseObjectStore
    /// The packs, the repository's own first, then those of its alternates.
    private(set) var packs: [PackReader] = []
    /// The `objects` directories of the alternate object stores, in git's order (the
    /// repository's `objects/info/alternates`, depth first, then `GIT_ALTERNATE_OBJECT_DIRECTORIES`).
    public let alternateDirectories: [String]
    /// The loose objects of the alternates.
    private let alternateLoose: [LooseObjectStore]
    /// The objects recently used as delta bases in any of the packs.
    private let baseCache: PackBaseCache
    /// The commit-graph once read (``commitGraph(enabled:)``): nil before, `.some(nil)` when
    /// there is none to use.
    var loadedCommitGraph: CommitGraphChain??

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
        alternateDirectories = Self.alternates(of: objectsDirectory, environment: Environment.value)
        alternateLoose = alternateDirectories.map { LooseObjectStore(objectsDirectory: $0, format: format) }
        try reloadPacks()
    }

    /// The same objects opened again for another thread (readers are used by one thread at a
    /// time): the packs' indexes are shared, not read and checked again, and the new database
    /// has a delta base cache of its own of at most `baseCacheLimit` bytes. `readWindows`: each
    /// pack's entries are read through a ``PackReadWindow`` (for a reader going mostly in pack
    /// order).
    package func reopened(baseCacheLimit: Int = PackBaseCache.defaultLimit, readWindows: Bool = false) throws
        -> ObjectDatabase
    {
        try ObjectDatabase(reopening: self, baseCacheLimit: baseCacheLimit, readWindows: readWindows)
    }

    private init(reopening other: ObjectDatabase, baseCacheLimit: Int, readWindows: Bool) throws {
        objectsDirectory = other.objectsDirectory
        format = other.format
        loose = LooseObjectStore(objectsDirectory: objectsDirectory, format: format)
        alternateDirectories = other.alternateDirectories
        alternateLoose = other.alternateLoose
        baseCache = PackBaseCache(limit: baseCacheLimit)
        packs = try other.packs.map { try PackReader(reopening: $0, baseCache: baseCache, readWindow: readWindows) }
    }

    /// Looks again for packs in `objects/pack` (and the alternates'), as after a fetch added one.
    /// A pack or index that is not a regular file once links are followed (a named pipe, a
    /// folder) is no pack, as git's `add_packed_git` takes none: opening a pipe would wait for a
    /// writer for ever.
    public func reloadPacks() throws {
        var found: [PackReader] = []
        func isRegularFile(_ path: String) -> Bool { FileSystem.status(path)?.isRegularFile ?? false }
        for objects in [objectsDirectory] + alternateDirectories {
            let directory = "\(objects)/pack"
            guard FileSystem.isDirectory(directory) else { continue }
            let listed: [String]
            do {
                listed = try FileSystem.contents(ofDirectory: directory)
            } catch let error as SystemCallError {
                // As git's prepare_packed_git_one: a directory that cannot be listed holds no
                // packs, after an error line.
                Self.reportUnreadablePackDirectory(
                    "unable to open object pack directory: \(directory): \(error.errno)")
                continue
            }
            let names = listed.filter { $0.hasSuffix(".idx") }.sorted()
            found += try names.compactMap { name in
                let packPath = "\(directory)/\(name.dropLast(4)).pack"
                guard isRegularFile(packPath), isRegularFile("\(directory)/\(name)") else { return nil }
                return try PackReader(
                    packPath: packPath, indexPath: "\(directory)/\(name)", format: format, baseCache: baseCache)
            }
        }
        packs = found
    }

    /// The deepest chain of alternates git follows (its `link_alt_odb_entries`).
    static let maximumAlternateDepth = 5

    /// The alternate object stores of `objectsDirectory`, as git's `prepare_alt_odb` finds them:
    /// each line of `objects/info/alternates` (but empty ones and `#` comments) is a store's
    /// `objects` directory, relative to the `objects` directory whose file names it; each store's
    /// own alternates follow it, at most ``maximumAlternateDepth`` deep; then the directories of
    /// `GIT_ALTERNATE_OBJECT_DIRECTORIES` (separated by `:`). A store named twice, the
    /// repository's own, and one that is not a directory are left out.
    static func alternates(of objectsDirectory: String, environment: (String) -> String?) -> [String] {
        var result: [String] = []
        var seen: Set<String> = [ConfigFiles.realPath(objectsDirectory) ?? objectsDirectory]
        func add(_ entry: String, relativeTo base: String, depth: Int) {
            guard !entry.isEmpty else { return }
            let joined = entry.hasPrefix("/") ? entry : "\(base)/\(entry)"
            guard FileSystem.isDirectory(joined) else { return }
            let path = ConfigFiles.realPath(joined) ?? joined
            guard seen.insert(path).inserted else { return }
            result.append(path)
            read(path, depth: depth + 1)
        }
        func read(_ directory: String, depth: Int) {
            guard depth <= maximumAlternateDepth,
                let bytes = try? ConfigFiles.read("\(directory)/info/alternates", limit: 1 << 20)
            else { return }
            for line in bytes.split(separator: 0x0a, omittingEmptySubsequences: true) {
                var line = line[...]
                if line.last == 0x0d { line = line.dropLast() }
                guard line.first != UInt8(ascii: "#") else { continue }
                add(String(decoding: line, as: UTF8.self), relativeTo: directory, depth: depth)
            }
        }
        read(objectsDirectory, depth: 0)
        if let variable = environment("GIT_ALTERNATE_OBJECT_DIRECTORIES") {
            let current = (try? FileSystem.currentDirectory()) ?? "/"
            for entry in variable.split(separator: ":") {
                add(String(entry), relativeTo: current, depth: 0)
            }
        }
        return result
    }

    /// What the refs of the alternates point at, as git's `for_each_alternate_ref` lists them
    /// for a fetch to offer as `have`s: for each alternate store in order whose real path ends
    /// in `/objects` beside a `refs` directory, the ids of that repository's refs by name (git
    /// runs `git --git-dir=<repository> for-each-ref --format=%(objectname)`), each id once.
    /// A store that is no repository, or whose refs cannot be read, adds nothing.
    public func alternateRefTips() -> [ObjectID] {
        var result: [ObjectID] = []
        var seen = Set<ObjectID>()
        for directory in alternateDirectories where directory.hasSuffix("/objects") {
            let repository = String(directory.dropLast("/objects".count))
            guard FileSystem.isDirectory("\(repository)/refs"),
                let refs = try? RefStore(gitDirectory: repository, format: format).all()
            else { continue }
            for ref in refs where seen.insert(ref.id).inserted { result.append(ref.id) }
        }
        return result
    }

    /// The object named `id`, from a pack or loose, or nil if the repository does not have it.
    public func object(_ id: ObjectID) throws -> GitObject? {
        for pack in packs {
            if let object = try pack.object(id) { return object }
        }
        if let object = try loose.object(id) { return object }
        for store in alternateLoose {
            if let object = try store.object(id) { return object }
        }
        return nil
    }

    /// The type of the object `id`, nil if the repository does not have it: read from a pack
    /// entry's header (and its delta bases' headers) or a loose object's inflated header alone,
    /// so memory stays bounded whatever the object's size.
    package func objectType(_ id: ObjectID) throws -> ObjectType? {
        for pack in packs {
            if let type = try pack.objectType(id) { return type }
        }
        if let header = try loose.header(id) { return header.type }
        for store in alternateLoose {
            if let header = try store.header(id) { return header.type }
        }
        return nil
    }

    /// Whether the repository has the object `id`.
    public func contains(_ id: ObjectID) -> Bool {
        packs.contains { $0.contains(id) } || loose.contains(id) || alternateLoose.contains { $0.contains(id) }
    }

    /// How many objects the packs hold (git's `approximate_object_count`, which leaves loose
    /// objects out).
    package var packedObjectCount: Int { packs.reduce(0) { $0 + $1.index.count } }

    /// How many loose objects the repository and its alternates hold: the files named as an
    /// object in the two-digit folders (not read).
    package func looseObjectCount() -> Int {
        var count = 0
        for objects in [objectsDirectory] + alternateDirectories {
            for first in 0..<256 {
                let folder = "\(objects)/\(String(first, radix: 16).leftPadded(to: 2))"
                guard let names = try? FileSystem.contents(ofDirectory: folder) else { continue }
                count += names.count { $0.utf8.count == format.hexCount - 2 }
            }
        }
        return count
    }

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
