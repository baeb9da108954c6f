/// Local paths and file:// — runs `git-upload-pack '<path>'` with pipes on its standard input and
/// output, as git does: through the shell when the command needs one (`--upload-pack="git
/// upload-pack"` or any command with arguments), with `GIT_PROTOCOL=version=N` for versions above
/// 0 and the variables that point git at a local repository removed. A path that starts with `-`
/// is refused, as git refuses it, so it can never be read as an option.
public struct LocalTransport: Transport {
    /// The command that serves `git-upload-pack` (a program on `PATH`, or a shell command to which
    /// the quoted path is appended).
    public let uploadPack: String
    /// The command that serves `git-receive-pack` for a push (`--receive-pack`, `--exec`,
    /// `remote.<name>.receivepack`), run as ``uploadPack`` is.
    public var receivePack = "git-receive-pack"
    /// What becomes of the program's standard error (this process's standard error by default);
    /// its last lines explain a failure either way (``RemoteProgramError``).
    public var programErrorOutput: ProgramErrorOutput = .standardError

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

    private func spawn(_ request: ServiceRequest, in loop: EpollRunLoop) throws -> StreamChannel {
        guard !request.path.hasBytePrefix("-") else { throw StrangePathnameError(path: request.path) }
        let command =
            request.service == .uploadPack
            ? uploadPack : request.service == .receivePack ? receivePack : request.service.rawValue
        var environment: [String: String?] = [:]
        for name in Self.repositoryVariables { environment[name] = .some(nil) }
        environment["GIT_PROTOCOL"] = .some(request.gitProtocolEnvironment)
        return try StreamChannel.connection(
            spawning: Self.arguments(command: command, path: request.path), environment: environment,
            errorOutput: programErrorOutput, loop: loop)
    }

    /// What git runs: `<command> '<path>'` through `sh -c` when the command holds anything the
    /// shell would read specially (spaces, quotes, `$`, ...); a plain program name runs directly,
    /// which is the same thing without the shell's start-up.
    static func arguments(command: String, path: String) -> [String] {
        let special = Set("|&;<>()$`\\\"' \t\n*?[#~=%".utf8)
        guard command.utf8.contains(where: special.contains) else { return [command, path] }
        return ["/bin/sh", "-c", "\(command) \(shellQuoted(path))"]
    }

    /// `text` in single quotes for the shell, as git's `sq_quote` writes it: byte by byte, so no
    /// quote hides inside a `Character` with a combining or prepended scalar.
    static func shellQuoted(_ text: String) -> String {
        var quoted: [UInt8] = [UInt8(ascii: "'")]
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "'"): quoted += Array("'\\''".utf8)
            case UInt8(ascii: "!"): quoted += Array("'\\!'".utf8)
            default: quoted.append(byte)
            }
        }
        quoted.append(UInt8(ascii: "'"))
        return String(decoding: quoted, as: UTF8.self)
    }

    /// Starts the service with pipes to it; the connection reaps it when closed.
    public func connect(
        _ request: ServiceRequest, timeout: Duration?, in loop: EpollRunLoop
    ) throws -> any Connection {
        try spawn(request, in: loop)
    }
}
