import GitWire

/// `gitwire pack-objects --stdout --revs`: writes the pack of the objects the revisions on
/// standard input select (`<rev>` to include, `^<rev>` to exclude), as a push makes it, so that
/// it can be checked with `git index-pack --strict` and compared with git's.
struct PackObjectsCommand: Subcommand {
    static let name = "pack-objects"
    static let abstract = "Write the pack of the objects selected by revisions, as a push sends it."
    static let discussion = """
        Reads revisions from standard input, one a line: an object id or ref name to include, or \
        one prefixed with ^ to exclude with everything it reaches (git rev-list --objects). \
        Writes the pack to standard output. Stored objects are copied as they are stored, deltas \
        included when their base is in the pack (or, with --thin, excluded); no new deltas are \
        searched for yet. The repository is $GIT_DIR, or the one found from the current directory.
        """

    static var options: [CommandOption<Self>] {
        [
            .flag(nil, "stdout", \.stdout, help: "Write the pack to standard output (required)."),
            .flag(nil, "revs", \.revs, help: "Read revisions from standard input (required)."),
            .flag(nil, "thin", \.thin, help: "Allow deltas against excluded objects."),
            .flag(nil, "delta-base-offset", \.offsetDeltas, help: "Name delta bases by offset."),
            .flag("q", nil, \.quiet, help: "Print no statistics."),
        ]
    }

    static var arguments: [CommandArgument<Self>] { [] }

    var stdout = false
    var revs = false
    var thin = false
    var offsetDeltas = false
    var quiet = false

    func execute() throws -> Int32 {
        guard stdout && revs else { throw UsageError("gitwire pack-objects needs --stdout and --revs") }
        let repository = try Repository(gitDirectory: Self.gitDirectory())
        var include: [ObjectID] = []
        var exclude: [ObjectID] = []
        var input: [UInt8] = []
        while true {
            let chunk = try File.standardInput().read(upTo: 1 << 16)
            if chunk.isEmpty { break }
            input += chunk
        }
        for line in input.split(separator: 0x0a) where !line.isEmpty {
            let negative = line.first == UInt8(ascii: "^")
            let text = String(decoding: negative ? line.dropFirst() : line[...], as: UTF8.self)
            guard let id = try Self.resolve(text, in: repository) else {
                throw UsageError("bad revision '\(text)'")
            }
            if negative { exclude.append(id) } else { include.append(id) }
        }
        var options = PackWriter.Options(offsetDeltas: offsetDeltas, thin: thin)
        options.commitGraph = repository.commitGraphEnabled
        let writer = try PackWriter(
            database: repository.objects, include: include, exclude: exclude, options: options)
        while let chunk = try writer.read() { try Console.writeOutput(chunk) }
        let statistics = writer.statistics
        if !quiet {
            Console.writeError(
                "Total \(statistics.objects) (delta \(statistics.deltas)), reused \(statistics.reused) (delta \(statistics.reusedDeltas)), pack-reused 0\n"
            )
        }
        return 0
    }

    /// `text` as an object id: 40 hex digits (64 in a SHA-256 repository), or a ref name as
    /// git's rev-parse finds it.
    static func resolve(_ text: String, in repository: Repository) throws -> ObjectID? {
        let format = repository.objects.format
        if text.utf8.count == format.hexCount, let id = ObjectID(hex: text.utf8, format: format) { return id }
        for name in [text, "refs/\(text)", "refs/tags/\(text)", "refs/heads/\(text)", "refs/remotes/\(text)"] {
            if let id = try repository.refs.resolve(name) { return id }
        }
        return nil
    }

    /// The git directory of the repository git would use here, found as git finds it
    /// (``RepositoryLocation/discover(from:environment:)``: `GIT_DIR`, `.git` directories and
    /// `.git` files of linked work trees, bare repositories, `safe.directory`).
    static func gitDirectory() throws -> String {
        try RepositoryLocation.discover().gitDirectory
    }
}
