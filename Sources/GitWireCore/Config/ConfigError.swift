/// A configuration git would refuse to read or use, with git's message (the text after `fatal: `).
public enum ConfigError: GitWireError, Hashable, Sendable {
    /// A line git cannot read (`bad config line 3 in file /home/me/.gitconfig`). `reason` is git's
    /// `error:` line when a directive on that line failed (an `include.path` that cannot be
    /// expanded, say); nil for a syntax error.
    case badLine(line: Int, origin: ConfigOrigin, reason: String?)
    /// Includes nested deeper than git's limit of 10 (usually an include loop).
    case includeDepthExceeded(including: String, from: String)
    /// `-c`, `GIT_CONFIG_PARAMETERS` or `GIT_CONFIG_COUNT` could not be read; `reason` is git's
    /// `error:` line (`bogus format in GIT_CONFIG_PARAMETERS`, `invalid key: x`, ...).
    case commandLine(reason: String)
    /// A file included through `includeIf.hasconfig:remote.*.url:` sets a remote's URL.
    case remoteURLInHasconfigInclude
    /// A configuration file exists but cannot be read (`unable to access '/etc/gitconfig': ...`).
    case unreadable(path: String, reason: String)
    /// A value that is not a boolean to git.
    case badBoolean(name: String, value: String?)
    /// A value that is not a number to git, or one out of range.
    case badNumber(name: String, value: String?, origin: ConfigOrigin?, outOfRange: Bool)
    /// A path whose `~` or `~user` cannot be expanded.
    case pathExpansion(String)
    /// A variable whose value is missing or unusable where it is read (`url.<base>.insteadOf`
    /// with no `=`, say). `reason` is git's `error:` line.
    case badVariable(name: String, origin: ConfigOrigin?, line: Int, reason: String?)
    /// A variable name git refuses (`key does not contain a section: x`, `invalid key: x`).
    case invalidKey(reason: String)
    /// A URL `http.<url>.*` lookups cannot use (`invalid port number`, ...).
    case invalidURL(reason: String)
    /// A value that is none of those a variable takes (`protocol.file.allow` set to `bogus`,
    /// `protocol.version` to `3`).
    case unknownValue(name: String, value: String)

    /// What kind of failure this is: ``GitWireErrorKind/usage`` (the configuration is the
    /// caller's input), ``GitWireErrorKind/system`` for a file that cannot be read.
    public var kind: GitWireErrorKind {
        if case .unreadable = self { return .system }
        return .usage
    }

    /// git's `error:` line printed before the fatal message, if git prints one.
    public var reason: String? {
        switch self {
        case .badLine(_, _, let reason), .badVariable(_, _, _, let reason): return reason
        case .commandLine(let reason): return reason
        default: return nil
        }
    }

    /// git's fatal message.
    public var description: String {
        switch self {
        case .badLine(let line, let origin, _):
            switch origin {
            case .file, .blob: return "bad config line \(line) in \(origin.messageText)"
            case .commandLine: return "bad config line \(line) in command line "
            }
        case .includeDepthExceeded(let including, let from):
            return """
                exceeded maximum include depth (10) while including
                \t\(including)
                from
                \t\(from)
                This might be due to circular includes.
                """
        case .commandLine: return "unable to parse command-line config"
        case .remoteURLInHasconfigInclude:
            return
                "remote URLs cannot be configured in file directly or indirectly included by includeIf.hasconfig:remote.*.url"
        case .unreadable(let path, let reason): return "unable to access '\(path)': \(reason)"
        case .badBoolean(let name, let value): return "bad boolean config value '\(value ?? "(null)")' for '\(name)'"
        case .badNumber(let name, let value, let origin, let outOfRange):
            let problem = outOfRange ? "out of range" : "invalid unit"
            guard let origin, origin != .commandLine else {
                return "bad numeric config value '\(value ?? "")' for '\(name)': \(problem)"
            }
            return "bad numeric config value '\(value ?? "")' for '\(name)' in \(origin.messageText): \(problem)"
        case .pathExpansion(let path): return "failed to expand user dir in: '\(path)'"
        case .badVariable(let name, let origin, let line, _):
            guard let path = origin?.path else { return "unable to parse '\(name)' from command-line config" }
            return "bad config variable '\(name)' in file '\(path)' at line \(line)"
        case .invalidKey(let reason): return reason
        case .invalidURL(let reason): return reason
        case .unknownValue(let name, let value): return "unknown value for config '\(name)': \(value)"
        }
    }
}
