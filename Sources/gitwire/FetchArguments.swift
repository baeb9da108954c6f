import GitWire

/// The options `clone` and `fetch` share.
struct FetchArguments {
    /// The options, for a command that keeps these arguments at `path`.
    static func options<Command>(at path: WritableKeyPath<Command, Self>) -> [CommandOption<Command>] {
        let options: [CommandOption<Self>] = [
            .flag("q", "quiet", \.quiet, help: "Show no progress and no summary."),
            .flag(nil, "progress", \.progress, help: "Show progress even when standard error is not a terminal."),
            .value(
                nil, "depth", valueName: "depth", \.depth,
                help: "Fetch only this many commits of history (a shallow repository)."),
            .value(
                nil, "shallow-since", valueName: "date", \.shallowSince,
                help: "Fetch history after this date (seconds since 1970, or YYYY-MM-DD[THH:MM:SS], UTC)."),
            .values(
                nil, "shallow-exclude", valueName: "ref", \.shallowExclude,
                help: "Fetch no history reachable from this remote ref."),
            .value(
                nil, "filter", valueName: "filter-spec", \.filter,
                help: "A partial-clone filter: blob:none, blob:limit=<n>, tree:<depth>."),
        ]
        return options.map { $0.lifted(path) } + RemoteArguments.options(at: path.appending(path: \.connection))
    }

    var quiet = false
    var progress = false
    var depth: String?
    var shallowSince: String?
    var shallowExclude: [String] = []
    var filter: String?
    var connection = RemoteArguments()

    /// Whether progress is shown: on a terminal, or when asked for, never with `-q`.
    var showsProgress: Bool { !quiet && (progress || Console.errorIsTerminal) }

    /// The remote for `repository`, with `--timeout`, `--upload-pack` and `--record` applied.
    func remote(
        _ repository: String, configuration: GitConfiguration? = nil, prepare: (inout Remote) throws -> Void = { _ in }
    ) throws -> (Remote, SessionRecording?) {
        try connection.remote(repository, configuration: configuration, prepare: prepare)
    }

    /// The negotiation options these arguments ask for (`protocol.version` from `configuration`,
    /// else from the configuration git would read here).
    func fetchOptions(unshallow: Bool = false, configuration: GitConfiguration? = nil) throws -> FetchOptions {
        let version = try connection.version(configuration: configuration)
        var depthCount: Int?
        if let depth {
            // As git words it, for anything but a positive decimal that fits.
            guard let count = Int(depth), count > 0 else {
                throw ValidationError("depth \(depth) is not a positive number")
            }
            depthCount = count
        }
        var options = FetchOptions(
            protocolVersion: version, depth: depthCount, shallowSince: try shallowSince.map(Self.parseDate),
            shallowExclude: shallowExclude, unshallow: unshallow, filter: filter, progress: showsProgress)
        options.agent = Self.userAgent
        return options
    }

    /// The agent every command's requests name (`agent=`, and HTTP's `User-Agent` unless
    /// configured): git's `git_user_agent()`, `GIT_USER_AGENT` when set.
    static var userAgent: String { Environment.value("GIT_USER_AGENT") ?? GitWireInfo.agent }

    /// Seconds since 1970 from `text`: a number, or `YYYY-MM-DD[THH:MM[:SS]]` in UTC.
    static func parseDate(_ text: String) throws -> Int64 {
        if let seconds = Int64(text), seconds >= 0 { return seconds }
        let parts = text.split(whereSeparator: { "-T: ".contains($0) }).map { Int64($0) }
        guard (3...6).contains(parts.count), parts.allSatisfy({ $0 != nil }) else {
            throw ValidationError("cannot read the date '\(text)': use seconds since 1970 or YYYY-MM-DD[THH:MM:SS]")
        }
        let values = parts.map { $0! } + Array(repeating: 0, count: 6 - parts.count)
        let (year, month, day) = (values[0], values[1], values[2])
        guard (1970...9999).contains(year), (1...12).contains(month), (1...31).contains(day), values[3] < 24,
            values[4] < 60, values[5] < 61
        else { throw ValidationError("cannot read the date '\(text)'") }
        // Days from the civil date (proleptic Gregorian), as in Howard Hinnant's algorithm.
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = shiftedYear / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return days * 86_400 + values[3] * 3600 + values[4] * 60 + values[5]
    }
}

/// The options of every command that talks to a remote: the protocol version, `--timeout`,
/// `--upload-pack` and `--record` (and `--replay`, for tests, not in the help).
struct RemoteArguments {
    /// The options, for a command that keeps these arguments at `path`.
    static func options<Command>(at path: WritableKeyPath<Command, Self>) -> [CommandOption<Command>] {
        let options: [CommandOption<Self>] = [
            .integer(
                nil, "protocol-version", valueName: "n", \.protocolVersion,
                help: "Protocol version to ask for: 0, 1 or 2 (default: protocol.version, else 2)."),
            .value(
                nil, "timeout", valueName: "seconds", \.timeout,
                help: "Seconds to wait for the connection and for each read (default: no limit)."),
            .value(
                nil, "upload-pack", valueName: "command", \.uploadPack,
                help:
                    "The command serving git-upload-pack on a local remote, run as git runs it (the quoted path appended, through the shell when needed)."
            ),
            .value(
                nil, "record", valueName: "file", \.record,
                help: "Record the whole session (every byte both ways) to this fixture file."),
            // Tests only: play a recorded session back instead of connecting (no network).
            .value(nil, "replay", valueName: "file", \.replay, help: nil),
        ]
        return options.map { $0.lifted(path) }
    }

    var protocolVersion: Int?
    var timeout: String?
    var uploadPack: String?
    var record: String?
    var replay: String?

    /// The protocol version asked for: `--protocol-version`, else `protocol.version` (of
    /// `configuration`, else of the configuration git would read here), else 2.
    func version(configuration: GitConfiguration? = nil) throws -> ProtocolVersion {
        guard let protocolVersion else {
            return try (configuration ?? CommandConfiguration.load()).protocolVersion() ?? .v2
        }
        guard let version = ProtocolVersion(rawValue: protocolVersion) else {
            throw ValidationError("unknown protocol version \(protocolVersion)")
        }
        return version
    }

    /// The remote for `repository` (a remote's name or a URL), with the configuration (`configuration`,
    /// else the one git would read here), `--protocol-version`, `--timeout`, `--upload-pack` and
    /// `--record` (or `--replay`) applied. `prepare` adjusts the remote's own transport before a
    /// recording wraps it or a replay replaces it (a push's `--receive-pack`).
    func remote(
        _ repository: String, configuration: GitConfiguration? = nil, prepare: (inout Remote) throws -> Void = { _ in }
    ) throws -> (Remote, SessionRecording?) {
        var remote: Remote
        if let configuration {
            remote = try Remote(repository, configuration: configuration, timeout: try parseTimeout(timeout))
        } else {
            remote = try CommandConfiguration.remote(repository, timeout: try parseTimeout(timeout))
        }
        remote.protocolVersion = try version(configuration: configuration)
        remote.showWarningsOnStandardError()
        if let uploadPack {
            guard remote.url.scheme == .file else { throw ValidationError("--upload-pack works with local remotes") }
            remote.transport = LocalTransport(uploadPack: uploadPack)
        }
        try prepare(&remote)
        if let replay {
            guard record == nil else { throw ValidationError("--record and --replay cannot be combined") }
            let replaying = try SessionRecording(replaying: replay, remote: &remote)
            return (remote, replaying)
        }
        let recording = record.map { SessionRecording(path: $0, remote: &remote) }
        return (remote, recording)
    }
}
