import GitWire

/// `gitwire clone --bare|--mirror`: makes the bare repository `git clone --bare` makes.
struct CloneCommand: Subcommand {
    static let name = "clone"
    static let abstract = "Clone a repository into a new bare repository, as git clone --bare does."
    static let discussion = """
        The repository has the refs, HEAD, configuration and objects git's clone gives it; git \
        uses it as its own. On error prints `fatal: <message>`, exits 128 and leaves nothing behind.
        """

    static var options: [CommandOption<Self>] {
        [
            .flag(nil, "bare", \.bare, help: "Make a bare repository (required: gitwire makes no working trees)."),
            .flag(
                nil, "mirror", \.mirror,
                help: "Mirror every ref of the remote, and configure the repository as a mirror."),
        ] + FetchArguments.options(at: \.arguments)
    }

    static var arguments: [CommandArgument<Self>] {
        [
            .required("repository", \.repository, help: "The remote repository: a URL or a path."),
            .optional(
                "directory", \.directory,
                help: "The new repository's directory (default: from the remote's name, ending in .git)."),
        ]
    }

    var bare = false
    var mirror = false
    var arguments = FetchArguments()
    var repository = ""
    var directory: String?

    func execute() throws -> Int32 {
        guard bare || mirror else {
            throw ValidationError("gitwire clone makes bare repositories: give --bare or --mirror")
        }
        guard let target = directory ?? RemoteURL.cloneDirectoryName(for: repository, bare: true) else {
            throw UsageError("No directory name could be guessed.\nPlease specify a directory on the command line")
        }
        let (remote, recording) = try arguments.remote(repository)
        // Options are checked before anything is said or done, as git checks them.
        let fetchOptions = try arguments.fetchOptions()
        if !arguments.quiet { Console.writeError("Cloning into bare repository '\(target)'...\n") }
        let display = FetchDisplay(showsProgress: arguments.showsProgress)
        var configuredURL: String?
        if remote.url.scheme == .file && !repository.utf8.containsSubsequence("://".utf8) {
            configuredURL = try Self.absolutePath(repository)
        }
        let options = RepositoryFetchOptions(
            fetch: fetchOptions, mirror: mirror, configuredURL: configuredURL)
        let result = try recording.saving {
            defer { display.finish() }
            return try remote.cloneBlocking(into: target, options: options, progress: display.handler)
        }
        for ignored in result.ignoredRefs { Console.writeError(ignored.message + "\n") }
        // A warning: git shows it with -q too.
        if result.outcome.listing.refs.allSatisfy({ $0.objectID == nil }) {
            Console.writeError("warning: You appear to have cloned an empty repository.\n")
        }
        return 0
    }

    private static func absolutePath(_ path: String) throws -> String {
        if path.hasPrefix("/") { return path }
        return try FileSystem.currentDirectory() + "/" + path
    }
}
