/// Local paths and file:// — runs `git-upload-pack <path>` with pipes on its standard input and
/// output, as git does, with `GIT_PROTOCOL=version=N` for versions above 0 and the variables
/// that point git at a local repository removed.
public struct LocalTransport: Transport {
    /// The program that serves `git-upload-pack` (found on `PATH`).
    public let uploadPack: String

    /// Always ``RemoteURL/Scheme/file``.
    public var scheme: RemoteURL.Scheme { .file }

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
        let program = request.service == .uploadPack ? uploadPack : request.service.rawValue
        var environment: [String: String?] = [:]
        for name in Self.repositoryVariables { environment[name] = .some(nil) }
        environment["GIT_PROTOCOL"] = .some(request.gitProtocolEnvironment)
        let (pair, process, _) = try ByteStreamPair.spawning([program, request.path], environment: environment)
        return (pair, process)
    }

    /// Starts the service with pipes to it; the connection reaps it when closed.
    public func connect(
        _ request: ServiceRequest, timeout: Duration?, in loop: EpollRunLoop
    ) throws -> any Connection {
        let (pair, process) = try spawn(request)
        return StreamConnection(pair: pair, process: process, greeting: [], loop: loop)
    }
}
