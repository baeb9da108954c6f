/// Which transports may be used, as git's `transport.c` decides it: `GIT_ALLOW_PROTOCOL` (a
/// colon-separated list, when set, is the whole answer), else `protocol.<name>.allow`, else
/// `protocol.allow`, else git's defaults: `http`, `https`, `git` and `ssh` always; `ext` never;
/// anything else (`file` among them) only when the user asked for it directly
/// (`GIT_PROTOCOL_FROM_USER`, true unless set otherwise). The values are `always`, `never` and
/// `user` (any case).
///
/// So a program that embeds gitwire can forbid local repositories as git does:
/// `protocol.file.allow=never` in its configuration, or `GIT_PROTOCOL_FROM_USER=0` in its
/// environment for URLs that did not come from its user. The names are git's: `file` (local paths
/// and `file://`), `git`, `ssh`, `http`, `https`. Pure.
public struct TransportPolicy: Hashable, Sendable {
    /// What a `protocol.*.allow` value says.
    public enum Allow: String, Hashable, Sendable {
        /// Always allowed.
        case always
        /// Never allowed.
        case never
        /// Allowed when the URL came from the user (`GIT_PROTOCOL_FROM_USER`).
        case user
    }

    private let entries: [ConfigEntry]
    /// `GIT_ALLOW_PROTOCOL`'s names, when set.
    public let allowList: Set<String>?
    /// `GIT_PROTOCOL_FROM_USER` as given.
    private let fromUserVariable: String?

    /// The policy `entries` (any configuration) and the environment's `GIT_ALLOW_PROTOCOL` and
    /// `GIT_PROTOCOL_FROM_USER` values give.
    public init(entries: [ConfigEntry], allowProtocol: String? = nil, protocolFromUser: String? = nil) {
        self.entries = entries.filter { $0.section == "protocol" && $0.key == "allow" }
        allowList = allowProtocol.map {
            Set($0.split(separator: ":", omittingEmptySubsequences: false).map(String.init))
        }
        fromUserVariable = protocolFromUser
    }

    /// Everything allowed that git allows by default, with no configuration and no variables.
    public static let gitDefaults = TransportPolicy(entries: [])

    /// The setting for `name`: `protocol.<name>.allow`, else `protocol.allow`, else git's
    /// default. Throws git's error for a value that is none of the three, or a missing one.
    public func setting(for name: String) throws(ConfigError) -> Allow {
        for key in ["protocol.\(name).allow", "protocol.allow"] {
            guard let entry = entries.last(where: { $0.name.utf8.elementsEqual(key.utf8) }) else { continue }
            guard let value = entry.value else {
                throw .badVariable(
                    name: entry.name, origin: entry.origin, line: entry.line,
                    reason: "missing value for '\(entry.name)'")
            }
            guard let allow = Allow(rawValue: value.lowercasedASCII) else {
                throw .unknownValue(name: key, value: value)
            }
            return allow
        }
        switch name {
        case "http", "https", "git", "ssh": return .always
        case "ext": return .never
        default: return .user
        }
    }

    /// Whether transport `name` may be used; `fromUser` says whether the URL came from the user
    /// directly (nil: as `GIT_PROTOCOL_FROM_USER` says, true when it is not set).
    public func allows(_ name: String, fromUser: Bool? = nil) throws(ConfigError) -> Bool {
        if let allowList { return allowList.contains(name) }
        switch try setting(for: name) {
        case .always: return true
        case .never: return false
        case .user:
            if let fromUser { return fromUser }
            guard let fromUserVariable else { return true }
            guard let value = ConfigValue.bool(fromUserVariable) else {
                throw .badBoolean(name: "GIT_PROTOCOL_FROM_USER", value: fromUserVariable)
            }
            return value
        }
    }

    /// Throws ``TransportNotAllowedError`` (git: `transport 'file' not allowed`) unless
    /// ``allows(_:fromUser:)``, and ``ConfigError`` for a setting git cannot read.
    public func check(_ name: String, fromUser: Bool? = nil) throws {
        guard try allows(name, fromUser: fromUser) else { throw TransportNotAllowedError(transport: name) }
    }
}

/// A transport the configuration does not allow (``TransportPolicy``): git's `transport 'file'
/// not allowed`.
public struct TransportNotAllowedError: GitWireError, Hashable, Sendable {
    /// The transport's name: `file`, `git`, `ssh`, `http`, `https`.
    public let transport: String

    /// Makes the error.
    public init(transport: String) { self.transport = transport }

    /// What kind of failure this is: ``GitWireErrorKind/usage`` (the caller's configuration says no).
    public var kind: GitWireErrorKind { .usage }

    /// git's message.
    public var description: String { "transport '\(transport)' not allowed" }
}
