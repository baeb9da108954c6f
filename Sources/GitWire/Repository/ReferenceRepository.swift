/// What git's `clone --reference`, `--reference-if-able`, `--shared` and `--dissociate` do to
/// the new repository's `objects/info/alternates`, in git's words and paths.
public enum ReferenceRepository {
    /// The git directory of the reference repository named `path`, as git's
    /// `compute_alternate_path` finds it: the real path, or the git directory a `.git` file
    /// there (or at `path/.git`) names, or `path/.git` when it has objects. Throws
    /// ``RepositoryError`` with git's message when it is no local repository, a linked work
    /// tree, shallow or grafted.
    public static func gitDirectory(of path: String) throws -> String {
        guard var directory = realPathAllowingMissingLast(path) else {
            throw RepositoryError.badReference("path '\(path)' does not exist")
        }
        if let target = LocalCloneSource.gitFileTargetIfAny(directory)
            ?? LocalCloneSource.gitFileTargetIfAny("\(directory)/.git")
        {
            directory = target
        } else if FileSystem.isDirectory("\(directory)/.git/objects") {
            directory += "/.git"
        } else if !FileSystem.isDirectory("\(directory)/objects") {
            if FileSystem.exists("\(directory)/commondir") {
                throw RepositoryError.badReference(
                    "reference repository '\(path)' as a linked checkout is not supported yet.")
            }
            throw RepositoryError.badReference("reference repository '\(path)' is not a local repository.")
        }
        if FileSystem.exists("\(directory)/shallow") {
            throw RepositoryError.badReference("reference repository '\(path)' is shallow")
        }
        if FileSystem.exists("\(directory)/info/grafts") {
            throw RepositoryError.badReference("reference repository '\(path)' is grafted")
        }
        return directory
    }

    /// git's `real_pathdup(path, 0)`: the real path of `path`, whose last component need not
    /// exist; nil when what is before it cannot be resolved.
    static func realPathAllowingMissingLast(_ path: String) -> String? {
        if let real = ConfigFiles.realPath(path) { return real }
        var trimmed = path
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let slash = trimmed.lastIndex(of: "/") else {
            guard let current = try? FileSystem.currentDirectory() else { return nil }
            return current == "/" ? "/\(trimmed)" : "\(current)/\(trimmed)"
        }
        let parent = slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
        let last = trimmed[trimmed.index(after: slash)...]
        guard last != "..", last != ".", let real = ConfigFiles.realPath(parent) else { return nil }
        return real == "/" ? "/\(last)" : "\(real)/\(last)"
    }

    /// Adds `objectsDirectory` as a line of `<gitDirectory>/objects/info/alternates` unless a line
    /// says it already, as git's `add_to_alternates_file` (a new file gets `0666` less the umask).
    public static func addAlternate(_ objectsDirectory: String, gitDirectory: String) throws {
        let path = "\(gitDirectory)/objects/info/alternates"
        var bytes: [UInt8] = FileSystem.exists(path) ? try FileSystem.read(path) : []
        let lines = bytes.split(separator: 0x0a, omittingEmptySubsequences: false)
        guard !lines.contains(where: { $0.elementsEqual(objectsDirectory.utf8) }) else { return }
        if let last = bytes.last, last != 0x0a { bytes.append(0x0a) }
        bytes += Array(objectsDirectory.utf8) + [0x0a]
        try FileSystem.writeAtomically(bytes[...], to: path, permissions: 0o666, temporaryPrefix: ".alternates-")
    }
}

extension ReferenceRepository {
    /// Makes the repository at `gitDirectory` stand alone, as `git clone --dissociate` does once
    /// the clone has fetched: git runs `git repack -a -d`, then removes
    /// `objects/info/alternates`. gitwire copies the packs and loose objects of every alternate
    /// store (the chains included) that the repository does not have under the same name
    /// (packs `0444` less the umask, each pack before its index, through temporary files), then
    /// removes the file. Nothing happens without an alternates file.
    ///
    /// Only what git would read as objects is copied: packs that are regular files (links
    /// followed, as git's `add_packed_git` takes them), and loose files named as an object of the
    /// repository's format that are regular files holding that very object (read and hashed
    /// first). A link to a private file, a named pipe, a folder, a file named as an object that
    /// does not hold it, or any other file in the store is left where it is (git's repack reads
    /// only the objects the clone needs, as objects).
    public static func dissociate(gitDirectory: String) throws {
        let objects = "\(gitDirectory)/objects"
        let alternatesFile = "\(objects)/info/alternates"
        guard FileSystem.exists(alternatesFile) else { return }
        let stores = ObjectDatabase.alternates(of: objects, environment: Environment.value)
        let format = try Repository.objectFormat(ofGitDirectory: gitDirectory)
        for store in stores {
            let packs = "\(store)/pack"
            if FileSystem.isDirectory(packs) {
                for name in try FileSystem.contents(ofDirectory: packs).sorted() where name.hasSuffix(".idx") {
                    let base = String(name.dropLast(4))
                    guard isRegularFile("\(packs)/\(base).pack"), isRegularFile("\(packs)/\(name)"),
                        !FileSystem.exists("\(objects)/pack/\(name)")
                    else { continue }
                    try copy("\(packs)/\(base).pack", to: "\(objects)/pack/\(base).pack", mode: 0o444)
                    try copy("\(packs)/\(name)", to: "\(objects)/pack/\(name)", mode: 0o444)
                }
            }
            let loose = LooseObjectStore(objectsDirectory: store, format: format)
            for directory in try FileSystem.contents(ofDirectory: store).sorted()
            where directory.utf8.count == 2 && directory.utf8.allSatisfy(isLowerHexDigit)
                && FileSystem.isDirectory("\(store)/\(directory)")
            {
                for name in try FileSystem.contents(ofDirectory: "\(store)/\(directory)")
                where name.utf8.count == format.hexCount - 2 && name.utf8.allSatisfy(isLowerHexDigit)
                    && isRegularFile("\(store)/\(directory)/\(name)")
                    && !FileSystem.exists("\(objects)/\(directory)/\(name)")
                {
                    let id = ObjectID(hex: (directory + name).utf8, format: format)!
                    // Copied only once it is read back as the object it is named as; any other
                    // file is left where it is, as git's repack leaves what it does not read.
                    guard (try? loose.object(id)?.id(format)) == id else { continue }
                    if !FileSystem.isDirectory("\(objects)/\(directory)") {
                        try FileSystem.makeDirectory("\(objects)/\(directory)")
                    }
                    try copy("\(store)/\(directory)/\(name)", to: "\(objects)/\(directory)/\(name)", mode: 0o444)
                }
            }
        }
        // git: `cannot unlink temporary alternates file`.
        try FileSystem.remove(alternatesFile)
    }

    /// Whether `path` is a regular file once links are followed (git's `S_ISREG` of `stat`).
    private static func isRegularFile(_ path: String) -> Bool {
        FileSystem.status(path)?.isRegularFile ?? false
    }

    private static func isLowerHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte)
    }

    /// Copies the file `source` to `destination` through a temporary file beside it, renamed into
    /// place once whole, with `mode` less the umask.
    private static func copy(_ source: String, to destination: String, mode: UInt32) throws {
        let input = try File.openForReading(source)
        defer { try? input.close() }
        let size = Int(try input.size())
        let output = try File.createTemporary(in: FileSystem.parentDirectory(of: destination), prefix: "tmp_copy_")
        do {
            var offset = 0
            while offset < size {
                let chunk = try input.read(at: Int64(offset), count: min(1 << 20, size - offset))
                guard !chunk.isEmpty else { break }
                try output.write(chunk[...])
                offset += chunk.count
            }
            try output.setCreationPermissions(mode)
            try output.close()
            try FileSystem.rename(output.path, to: destination)
        } catch {
            try? FileSystem.remove(output.path)
            throw error
        }
    }
}
