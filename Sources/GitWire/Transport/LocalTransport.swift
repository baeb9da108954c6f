/// Local paths and file:// — runs `git-upload-pack <path>` with pipes on its standard input and
/// output, as git does, with `GIT_PROTOCOL=version=N` for versions above 0 and the variables
/// that point git at a local repository removed.
public struct LocalTransport: Transport {
    /// The program that serves `git-upload-pack` (found on `PATH`).
    public let uploadPack: String

    public var name: String { "file" }

    /// A local transport that runs `uploadPack`.
    public init(uploadPack: String = "git-upload-pack") { self.uploadPack = uploadPack }

    /// Variables git removes before running a service on a local repository.
    static let repositoryVariables = [
        "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
        "GIT_OBJECT_DIRECTORY", "GIT_DIR", "GIT_WORK_TREE", "GIT_IMPLICIT_WORK_TREE", "GIT_GRAFT_FILE",
        "GIT_INDEX_FILE", "GIT_NO_REPLACE_OBJECTS", "GIT_REPLACE_REF_BASE", "GIT_PREFIX", "GIT_SHALLOW_FILE",
        "GIT_COMMON_DIR",
    ]

    private func spawn(_ request: ServiceRequest) throws -> (ByteStreamPair, ChildProcess) {
        let program = request.service == "git-upload-pack" ? uploadPack : request.service
        var environment: [String: String?] = [:]
        for name in Self.repositoryVariables { environment[name] = .some(nil) }
        environment["GIT_PROTOCOL"] = .some(request.gitProtocolEnvironment)
        let (pair, process, _) = try ByteStreamPair.spawning([program, request.path], environment: environment)
        return (pair, process)
    }

    public func connect(_ request: ServiceRequest, timeout: Duration?) throws -> any BlockingConnection {
        let (pair, process) = try spawn(request)
        try pair.open()
        return StreamBlockingConnection(pair: pair, process: process, greeting: [], timeout: timeout)
    }

    public func connect(
        _ request: ServiceRequest, timeout: Duration?, in loop: EpollRunLoop
    ) throws -> any LoopConnection {
        let (pair, process) = try spawn(request)
        return StreamLoopConnection(pair: pair, process: process, greeting: [], loop: loop)
    }
}
