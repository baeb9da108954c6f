/// The refs of a git directory, read and written as git does: loose refs under `refs/`, the
/// `packed-refs` file, and `HEAD`; every change through git's lock files.
public struct RefStore: Sendable {
    /// The git directory: `HEAD` (and the other refs of one work tree) are there.
    public let gitDirectory: String
    /// The directory shared by every work tree: `refs/` and `packed-refs` are there (the git
    /// directory itself unless it is a linked work tree's).
    public let commonDirectory: String
    /// The format of the object ids the refs hold.
    public let format: ObjectFormat

    /// The refs of `gitDirectory`, whose shared refs are in `commonDirectory` (by default the
    /// same directory), holding object ids of `format`.
    public init(gitDirectory: String, commonDirectory: String? = nil, format: ObjectFormat) {
        self.gitDirectory = gitDirectory
        self.commonDirectory = commonDirectory ?? gitDirectory
        self.format = format
    }

    /// The refs of `gitDirectory` (shared refs in `commonDirectory`, by default the same
    /// directory), in the object format the repository's `config` declares.
    public init(gitDirectory: String, commonDirectory: String? = nil) throws {
        self.init(
            gitDirectory: gitDirectory, commonDirectory: commonDirectory,
            format: try Repository.objectFormat(ofGitDirectory: commonDirectory ?? gitDirectory))
    }

    var packedRefsPath: String { "\(commonDirectory)/packed-refs" }

    /// The file of the loose ref `name`: in the git directory for `HEAD` and the refs git keeps
    /// per work tree (`refs/bisect/`, `refs/worktree/`, `refs/rewritten/`), in the common
    /// directory otherwise.
    func path(of name: String) -> String {
        "\(Self.isPerWorktree(name) ? gitDirectory : commonDirectory)/\(name)"
    }

    /// Whether git keeps `name` per work tree.
    static func isPerWorktree(_ name: String) -> Bool {
        !name.hasPrefix("refs/") || name.hasPrefix("refs/bisect/") || name.hasPrefix("refs/worktree/")
            || name.hasPrefix("refs/rewritten/")
    }

    // MARK: Reading

    /// Every ref under `refs/`, loose refs taking precedence over packed ones, sorted by name.
    /// Symbolic refs under `refs/` are resolved one level; ones that point nowhere are left out,
    /// and so are broken ones (see ``RepositoryError/brokenRef(_:)``), as git leaves them out.
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
            case .symbolic(let target):
                // As git's `refs_resolve_ref_unsafe`: a target that is no ref name (`../x`, say)
                // makes the ref broken, never a path to read.
                guard RefNameFormat.isValid(Array(target.utf8), allowOneLevel: true) else {
                    throw RepositoryError.brokenRef(name)
                }
                return target == name ? nil : try resolve(target)
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
                guard !records.isEmpty, let peeled = ObjectID(hex: line.dropFirst(), format: format) else {
                    throw RepositoryError.corrupt(packedRefsPath, String(decoding: line, as: UTF8.self))
                }
                records[records.count - 1].peeled = peeled
                continue
            }
            let width = format.hexCount
            guard line.count > width + 1, line[line.startIndex + width] == UInt8(ascii: " "),
                let id = ObjectID(hex: line.prefix(width), format: format)
            else { throw RepositoryError.corrupt(packedRefsPath, String(decoding: line, as: UTF8.self)) }
            records.append(RefRecord(name: String(decoding: line.dropFirst(width + 1), as: UTF8.self), id: id))
        }
        return records
    }

    func readLoose(_ name: String) throws -> HeadState? {
        let path = self.path(of: name)
        guard FileSystem.exists(path), !FileSystem.isDirectory(path) else { return nil }
        var text = try FileSystem.read(path)
        while text.last == UInt8(ascii: "\n") || text.last == UInt8(ascii: "\r") { text.removeLast() }
        if text.starts(with: Array("ref: ".utf8)) {
            return .symbolic(String(decoding: text.dropFirst(5), as: UTF8.self))
        }
        // Nothing of the file is shown: it may be a symbolic link to a file that is not a ref.
        guard let id = ObjectID(hex: text, format: format) else { throw RepositoryError.brokenRef(name) }
        return .detached(id)
    }

    private func collectLoose(directory: String, into byName: inout [String: RefRecord]) throws {
        let path = "\(commonDirectory)/\(directory)"
        guard FileSystem.isDirectory(path) else { return }
        for entry in try FileSystem.contents(ofDirectory: path) where !entry.hasSuffix(".lock") {
            let name = "\(directory)/\(entry)"
            if FileSystem.isDirectory("\(commonDirectory)/\(name)") {
                try collectLoose(directory: name, into: &byName)
            } else {
                // A broken ref (no object id, a symbolic ref to no ref name) is left out of the
                // listing, as git's ref iteration leaves it out; naming it still fails.
                let id: ObjectID?
                do { id = try resolve(name) } catch RepositoryError.brokenRef { continue }
                if let id { byName[name] = RefRecord(name: name, id: id, peeled: nil) }
            }
        }
    }

    /// The loose refs under `refs/` that are symbolic, with what they point to.
    public func symbolicRefs() throws -> [String: String] {
        var result: [String: String] = [:]
        func walk(_ directory: String) throws {
            let path = "\(commonDirectory)/\(directory)"
            guard FileSystem.isDirectory(path) else { return }
            for entry in try FileSystem.contents(ofDirectory: path) where !entry.hasSuffix(".lock") {
                let name = "\(directory)/\(entry)"
                if FileSystem.isDirectory("\(commonDirectory)/\(name)") {
                    try walk(name)
                } else if case .symbolic(let target)? = try? readLoose(name) {
                    result[name] = target
                }
            }
        }
        try walk("refs")
        return result
    }
}
