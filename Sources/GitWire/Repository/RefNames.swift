/// A change to one ref: to a new object id, or a deletion; optionally only if it still names
/// `expectedOldID`.
public struct RefUpdate: Hashable, Sendable {
    /// The full ref name.
    public var name: String
    /// The new object id; nil deletes the ref.
    public var newID: ObjectID?
    /// The id the ref must still have (nil: no check).
    public var expectedOldID: ObjectID?
    /// What the reflog entry of the update says (`fetch origin: fast-forward`); nil: none.
    public var logMessage: String?

    /// An update of `name` to `newID` (nil: delete), checked against `expectedOldID` if given,
    /// logged with `logMessage`.
    public init(name: String, newID: ObjectID?, expectedOldID: ObjectID? = nil, logMessage: String? = nil) {
        self.name = name
        self.newID = newID
        self.expectedOldID = expectedOldID
        self.logMessage = logMessage
    }
}

/// The names of a repository's refs, loose and packed, for the name-conflict checks of a
/// transaction: which exist, and whether any lies below a name (`refs/heads/x/y` below
/// `refs/heads/x`).
struct RefNames {
    private(set) var names = HashedNames([])
    /// The names in `packed-refs`.
    private(set) var packed: Set<String> = []
    /// The values in `packed-refs`.
    private(set) var packedIDs: [String: ObjectID] = [:]
    /// How many refs lie below each directory, by the directory's ``HashedNames/hash(_:)`` (a
    /// string for each directory of each name would hold the square of a deep name's length;
    /// two directories with one hash only make ``firstBelow(_:)`` look at the names).
    private var below: [Int: Int] = [:]

    init(store: RefStore) throws {
        for record in try store.packedRefs() {
            packed.insert(record.name)
            packedIDs[record.name] = record.id
            add(record.name)
        }
        try collectLoose(store.commonDirectory, "refs")
    }

    private mutating func collectLoose(_ gitDirectory: String, _ directory: String) throws {
        let path = "\(gitDirectory)/\(directory)"
        guard FileSystem.isDirectory(path) else { return }
        for entry in try FileSystem.contents(ofDirectory: path) where !entry.hasSuffix(".lock") {
            let name = "\(directory)/\(entry)"
            if FileSystem.isDirectory("\(gitDirectory)/\(name)") {
                try collectLoose(gitDirectory, name)
            } else {
                add(name)
            }
        }
    }

    func contains(_ name: String) -> Bool { names.contains(name) }

    /// The first ref (in name order) below `name`, if any.
    func firstBelow(_ name: String) -> String? {
        guard below[HashedNames.hash(name[...]), default: 0] > 0 else { return nil }
        return names.names.filter { $0.hasPrefix(name + "/") }.min { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    mutating func add(_ name: String) {
        guard names.insert(name) else { return }
        RefStore.forEachDirectory(of: name) { _, hash in below[hash, default: 0] += 1 }
    }

    mutating func remove(_ name: String) {
        packed.remove(name)
        packedIDs[name] = nil
        guard names.remove(name) else { return }
        RefStore.forEachDirectory(of: name) { _, hash in
            below[hash, default: 0] -= 1
            if below[hash] == 0 { below[hash] = nil }
        }
    }
}

/// Ref names with a hash of each, so that whether a directory of a name (a prefix of it) is
/// itself one of the names is found without a string for every prefix: the hash is computed
/// while the name is walked (``RefStore/forEachDirectory(of:_:)``), and the prefix is compared
/// only when a name has that hash. The hash is seeded per process (Swift's `Hasher`), so a
/// server cannot choose names that collide.
struct HashedNames {
    private(set) var names: Set<String>
    /// How many of the names have each hash.
    private var hashes: [Int: Int] = [:]

    init(_ names: some Sequence<String>) {
        self.names = []
        for name in names { insert(name) }
    }

    func contains(_ name: String) -> Bool { names.contains(name) }

    /// Whether `prefix`, whose hash is `hash`, is one of the names.
    func contains(_ prefix: Substring, hash: Int) -> Bool {
        hashes[hash] != nil && names.contains(String(prefix))
    }

    /// Adds `name`; false if it was there.
    @discardableResult
    mutating func insert(_ name: String) -> Bool {
        guard names.insert(name).inserted else { return false }
        hashes[Self.hash(name[...]), default: 0] += 1
        return true
    }

    /// Removes `name`; false if it was not there.
    @discardableResult
    mutating func remove(_ name: String) -> Bool {
        guard names.remove(name) != nil else { return false }
        let hash = Self.hash(name[...])
        hashes[hash, default: 0] -= 1
        if hashes[hash] == 0 { hashes[hash] = nil }
        return true
    }

    /// The hash of `text`'s UTF-8, byte by byte: what ``RefStore/forEachDirectory(of:_:)``
    /// gives for a prefix equal to `text`.
    static func hash(_ text: Substring) -> Int {
        var hasher = Hasher()
        for byte in text.utf8 { hasher.combine(byte) }
        return hasher.finalize()
    }
}

extension Hasher {
    /// The hash of what was combined so far; the hasher goes on.
    func copiedFinal() -> Int {
        let copy = self
        return copy.finalize()
    }
}
