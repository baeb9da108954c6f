/// The refs of a git directory, read and written as git does: loose refs under `refs/`, the
/// `packed-refs` file, and `HEAD`; every change through git's lock files.
public struct RefStore: Sendable {
    /// The git directory (a bare repository).
    public let gitDirectory: String

    /// The refs of `gitDirectory`.
    public init(gitDirectory: String) { self.gitDirectory = gitDirectory }

    private var packedRefsPath: String { "\(gitDirectory)/packed-refs" }

    // MARK: Reading

    /// Every ref under `refs/`, loose refs taking precedence over packed ones, sorted by name.
    /// Symbolic refs under `refs/` are resolved one level; ones that point nowhere are left out.
    public func all() throws -> [RefRecord] {
        var byName: [String: RefRecord] = [:]
        for record in try packedRefs() { byName[record.name] = record }
        try collectLoose(directory: "refs", into: &byName)
        return byName.values.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }

    /// The object `name` (a full ref name) names, or nil if there is no such ref.
    public func resolve(_ name: String) throws -> ObjectID? {
        if let loose = try readLoose(name) {
            switch loose {
            case .detached(let id): return id
            case .symbolic(let target): return target == name ? nil : try resolve(target)
            }
        }
        return try packedRefs().first { $0.name == name }?.id
    }

    /// Where `HEAD` points.
    public func head() throws -> HeadState {
        guard let head = try readLoose("HEAD") else { throw RepositoryError.notARepository(gitDirectory) }
        return head
    }

    /// The records of `packed-refs`, with their peeled values; empty when there is no such file.
    public func packedRefs() throws -> [RefRecord] {
        guard FileSystem.exists(packedRefsPath) else { return [] }
        let text = try FileSystem.read(packedRefsPath)
        var records: [RefRecord] = []
        for line in text.split(separator: UInt8(ascii: "\n")) {
            if line.first == UInt8(ascii: "#") { continue }
            if line.first == UInt8(ascii: "^") {
                guard !records.isEmpty, let peeled = ObjectID(hex: line.dropFirst()) else {
                    throw RepositoryError.corrupt(packedRefsPath, String(decoding: line, as: UTF8.self))
                }
                records[records.count - 1].peeled = peeled
                continue
            }
            guard line.count > 41, line[line.startIndex + 40] == UInt8(ascii: " "),
                let id = ObjectID(hex: line.prefix(40))
            else { throw RepositoryError.corrupt(packedRefsPath, String(decoding: line, as: UTF8.self)) }
            records.append(RefRecord(name: String(decoding: line.dropFirst(41), as: UTF8.self), id: id))
        }
        return records
    }

    private func readLoose(_ name: String) throws -> HeadState? {
        let path = "\(gitDirectory)/\(name)"
        guard FileSystem.exists(path), !FileSystem.isDirectory(path) else { return nil }
        var text = try FileSystem.read(path)
        while text.last == UInt8(ascii: "\n") || text.last == UInt8(ascii: "\r") { text.removeLast() }
        if text.starts(with: Array("ref: ".utf8)) {
            return .symbolic(String(decoding: text.dropFirst(5), as: UTF8.self))
        }
        guard let id = ObjectID(hex: text) else {
            throw RepositoryError.corrupt(path, String(decoding: text, as: UTF8.self))
        }
        return .detached(id)
    }

    private func collectLoose(directory: String, into byName: inout [String: RefRecord]) throws {
        let path = "\(gitDirectory)/\(directory)"
        guard FileSystem.isDirectory(path) else { return }
        for entry in try FileSystem.contents(ofDirectory: path) where !entry.hasSuffix(".lock") {
            let name = "\(directory)/\(entry)"
            if FileSystem.isDirectory("\(gitDirectory)/\(name)") {
                try collectLoose(directory: name, into: &byName)
            } else if let id = try resolve(name) {
                byName[name] = RefRecord(name: name, id: id, peeled: nil)
            }
        }
    }

    // MARK: Writing

    /// Points `HEAD` (or another symbolic ref) at `target`, through its lock file.
    public func setSymbolicRef(_ name: String = "HEAD", to target: String) throws {
        try Self.checkName(target)
        let lock = try RefLock("\(gitDirectory)/\(name)")
        try lock.write(Array("ref: \(target)\n".utf8))
        try lock.commit()
    }

    /// Points `HEAD` at the commit `id` itself (a detached `HEAD`), through its lock file.
    public func setDetachedHead(_ id: ObjectID) throws {
        let lock = try RefLock("\(gitDirectory)/HEAD")
        try lock.write(Array("\(id.hex)\n".utf8))
        try lock.commit()
    }

    /// Writes `packed-refs` with exactly `records`, as git does: the
    /// `# pack-refs with: peeled fully-peeled sorted ` header, records sorted by name, and a `^`
    /// line after each annotated tag with what it peels to.
    public func writePackedRefs(_ records: [RefRecord]) throws {
        for record in records { try Self.checkName(record.name) }
        let lock = try RefLock(packedRefsPath)
        try lock.write(Self.packedRefsText(records))
        try lock.commit()
    }

    /// The text of a `packed-refs` file holding `records`.
    static func packedRefsText(_ records: [RefRecord]) -> [UInt8] {
        var text = Array("# pack-refs with: peeled fully-peeled sorted \n".utf8)
        for record in records.sorted(by: { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }) {
            record.id.appendHex(to: &text)
            text.append(UInt8(ascii: " "))
            text += record.name.utf8
            text.append(UInt8(ascii: "\n"))
            if let peeled = record.peeled {
                text.append(UInt8(ascii: "^"))
                peeled.appendHex(to: &text)
                text.append(UInt8(ascii: "\n"))
            }
        }
        return text
    }

    /// Applies `updates` all or nothing: every ref's lock is taken first (and `packed-refs.lock`
    /// when a ref is deleted), every expected old value checked, and only then are the new values
    /// made visible. A held lock or an old value that changed leaves every ref as it was.
    public func apply(_ updates: [RefUpdate]) throws {
        guard !updates.isEmpty else { return }
        for update in updates { try Self.checkName(update.name) }
        let current = Dictionary(try all().map { ($0.name, $0.id) }, uniquingKeysWith: { first, _ in first })
        var locks: [RefLock] = []
        defer { for lock in locks { lock.rollback() } }
        for update in updates.sorted(by: { $0.name < $1.name }) {
            try FileSystem.makeDirectories(Self.parent(of: "\(gitDirectory)/\(update.name)"))
            let lock = try RefLock("\(gitDirectory)/\(update.name)")
            locks.append(lock)
            if let expected = update.expectedOldID, current[update.name] != expected {
                throw RepositoryError.refChanged(update.name)
            }
            if let new = update.newID { try lock.write(Array("\(new.hex)\n".utf8)) }
        }
        let deletions = Set(updates.filter { $0.newID == nil }.map(\.name))
        if !deletions.isEmpty {
            let packed = try packedRefs()
            if packed.contains(where: { deletions.contains($0.name) }) {
                let packedLock = try RefLock(packedRefsPath)
                locks.append(packedLock)
                try packedLock.write(Self.packedRefsText(packed.filter { !deletions.contains($0.name) }))
                try packedLock.commit()
            }
        }
        for (lock, update) in zip(locks, updates.sorted(by: { $0.name < $1.name })) {
            if update.newID != nil {
                try lock.commit()
            } else {
                try FileSystem.remove(lock.path)
                lock.rollback()
                removeEmptyParents(of: update.name)
            }
        }
    }

    private func removeEmptyParents(of name: String) {
        var parts = name.split(separator: "/").dropLast()
        while parts.count > 1 {
            FileSystem.removeDirectoryIfEmpty("\(gitDirectory)/\(parts.joined(separator: "/"))")
            parts = parts.dropLast()
        }
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return String(path[..<slash])
    }

    /// Refuses names git would refuse (`..`, control characters, `.lock` components, ...), so a
    /// server's ref name can never reach outside `refs/`.
    static func checkName(_ name: String) throws {
        guard name.hasPrefix("refs/"), RefNameFormat.isValid(Array(name.utf8), allowOneLevel: false) else {
            throw RepositoryError.badRefName(name)
        }
    }
}

/// A change to one ref: to a new object id, or a deletion; optionally only if it still names
/// `expectedOldID`.
public struct RefUpdate: Hashable, Sendable {
    /// The full ref name.
    public var name: String
    /// The new object id; nil deletes the ref.
    public var newID: ObjectID?
    /// The id the ref must still have (nil: no check).
    public var expectedOldID: ObjectID?

    /// An update of `name` to `newID` (nil: delete), checked against `expectedOldID` if given.
    public init(name: String, newID: ObjectID?, expectedOldID: ObjectID? = nil) {
        self.name = name
        self.newID = newID
        self.expectedOldID = expectedOldID
    }
}
