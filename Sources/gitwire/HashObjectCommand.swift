import GitWire

/// `gitwire hash-object`: prints the object ids of files or standard input, like `git hash-object`,
/// with SHA-1 collision detection, or with SHA-256.
struct HashObjectCommand: Subcommand {
    static let name = "hash-object"
    static let abstract = "Compute object ids, as git hash-object does, refusing SHA-1 collision attacks."
    static let discussion = """
        Prints one id per input: standard input first with --stdin, then the files in order. \
        Content is hashed as it is (no clean filters or line-ending conversion, as git does \
        with --no-filters). Types other than blob need --literally: git checks the format of \
        commits, trees and tags first, gitwire does not yet. Data carrying a SHA-1 collision \
        attack fails with git's message and exit status 128. Ids are of the repository's object \
        format (SHA-1 outside a repository) unless --object-format says otherwise.
        """

    static var options: [CommandOption<Self>] {
        [
            .value("t", nil, valueName: "type", \.type, help: "The object type (default: blob)."),
            .flag("w", nil, \.write, help: "Also write the objects as loose objects into the repository."),
            .flag(nil, "stdin", \.stdin, help: "Read the object from standard input."),
            .flag(nil, "no-filters", \.noFilters, help: "Hash the content as it is (gitwire always does)."),
            .flag(nil, "literally", \.literally, help: "Hash any type name without checking it."),
            .value(
                nil, "object-format", valueName: "format", \.objectFormatName,
                help: "The hash to name objects with: sha1 or sha256 (default: the repository's, else sha1)."),
            .flag(nil, "unchecked-sha1", \.uncheckedSHA1, help: nil),
        ]
    }

    static var arguments: [CommandArgument<Self>] {
        [
            .repeating("file", \.files, help: "Files to hash.")
        ]
    }

    var type = "blob"
    var write = false
    var stdin = false
    var noFilters = false
    var literally = false
    var uncheckedSHA1 = false
    var objectFormatName: String?
    var files: [String] = []

    func execute() throws -> Int32 {
        let header = try typeName()
        var format = ObjectFormat.sha1
        if let objectFormatName {
            guard let named = ObjectFormat(objectFormatName) else {
                throw UsageError("unknown hash algorithm '\(objectFormatName)'")
            }
            format = named
        }
        var store: LooseObjectStore?
        // As git: the repository's format, found where git finds the repository (needed to write).
        if write || objectFormatName == nil, let location = try Self.repository(required: write) {
            let repositoryFormat = try Repository.objectFormat(ofGitDirectory: location.commonDirectory)
            if objectFormatName == nil { format = repositoryFormat }
            if write {
                guard format == repositoryFormat else {
                    throw UsageError(
                        "cannot write \(format) objects into a \(repositoryFormat) repository (\(location.gitDirectory))"
                    )
                }
                store = LooseObjectStore(objectsDirectory: Self.objectsDirectory(location), format: format)
                // As git: the objects and directories written follow `core.sharedRepository`.
                try GitConfiguration.load(gitDirectory: location.gitDirectory).useSharedRepository()
            }
        }
        // Each id is printed as soon as it is known, so the ones before a failure still appear.
        if stdin {
            try Console.writeOutput(hash(File.standardInput(), type: header, format: format, store: store).hex + "\n")
        }
        for path in files {
            let file: File
            do {
                file = try File.openForReading(path)
            } catch let error as SystemCallError {
                throw UsageError("could not open '\(path)' for reading: \(error.errno)")
            }
            try Console.writeOutput(hash(file, type: header, format: format, store: store).hex + "\n")
        }
        return 0
    }

    /// The type name to hash with: one of git's four, or anything with --literally.
    private func typeName() throws -> String {
        if literally { return type }
        guard let objectType = ObjectType(name: type.utf8) else { throw UsageError("invalid object type \"\(type)\"") }
        guard objectType == .blob else {
            throw UsageError("-t \(type) needs --literally in gitwire (git would check the \(type)'s format first)")
        }
        return type
    }

    /// The id in `format` of the object of type `type` whose content is what `file` holds; writes
    /// the object to `store` if given. A regular file is hashed as it is read (its size, which the
    /// header needs, is known first); anything else is read whole first, as git does.
    private func hash(_ file: File, type: String, format: ObjectFormat, store: LooseObjectStore?) throws -> ObjectID {
        if store == nil, let size = try file.regularFileSize() {
            var hasher = Hasher(format: format, unchecked: uncheckedSHA1)
            hasher.update(Array("\(type) \(size)\0".utf8))
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 64)
            defer { buffer.deallocate() }
            var total: Int64 = 0
            while true {
                let count = try file.read(into: buffer)
                if count == 0 { break }
                hasher.update(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                total += Int64(count)
            }
            guard total == size else { throw UsageError("\(file.path) changed size while being hashed") }
            return try hasher.finish()
        }
        let chunks = try Self.readAll(file)
        let size = chunks.reduce(0) { $0 + $1.count }
        var hasher = Hasher(format: format, unchecked: uncheckedSHA1)
        hasher.update(Array("\(type) \(size)\0".utf8))
        for chunk in chunks { chunk.withUnsafeBytes { hasher.update($0) } }
        let id = try hasher.finish()
        if let store {
            guard let objectType = ObjectType(name: type.utf8) else {
                throw UsageError("gitwire cannot write objects of type \"\(type)\"")
            }
            try store.write(GitObject(type: objectType, data: Array(chunks.joined())))
        }
        return id
    }

    /// Everything `file` holds, in pieces of up to 1 MiB (not joined: hashing takes them in turn).
    private static func readAll(_ file: File) throws -> [[UInt8]] {
        var chunks: [[UInt8]] = []
        while true {
            let chunk = try file.read(upTo: 1 << 20)
            if chunk.isEmpty { return chunks }
            chunks.append(chunk)
        }
    }

    /// The repository git would use here, found as git finds it
    /// (``RepositoryLocation/discover(from:environment:)``: `GIT_DIR`, `.git` directories and
    /// files upwards, `GIT_CEILING_DIRECTORIES`, `safe.directory`). Nil outside one, unless
    /// `required` (then git's error).
    private static func repository(required: Bool) throws -> RepositoryLocation? {
        required ? try RepositoryLocation.discover() : try? RepositoryLocation.discover()
    }

    /// The objects directory of the repository at `location`; `GIT_OBJECT_DIRECTORY` when set.
    private static func objectsDirectory(_ location: RepositoryLocation) -> String {
        Environment.value("GIT_OBJECT_DIRECTORY") ?? "\(location.commonDirectory)/objects"
    }
}

/// The object hasher of the format (checked SHA-1 or SHA-256), or (for `--unchecked-sha1`, which
/// benchmarks use) plain SHA-1.
private struct Hasher {
    var checked: ObjectHasher
    var unchecked: UncheckedSHA1?

    init(format: ObjectFormat, unchecked: Bool) {
        checked = ObjectHasher(format)
        self.unchecked = unchecked && format == .sha1 ? UncheckedSHA1() : nil
    }

    mutating func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }

    mutating func update(_ buffer: UnsafeRawBufferPointer) {
        if unchecked != nil { unchecked!.update(buffer) } else { checked.update(buffer) }
    }

    mutating func finish() throws -> ObjectID {
        if unchecked != nil { return unchecked!.finish() }
        return try checked.finish()
    }
}
