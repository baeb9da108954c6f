/// The origin of an `http://` or `https://` URL: scheme, host and port (RFC 6454), which is how
/// git keys credentials. A credential given for one origin goes with no request to another.
public struct HTTPOrigin: Hashable, Sendable, CustomStringConvertible {
    /// Whether the scheme is `https`.
    public let isSecure: Bool
    /// The host, ASCII letters lowercased; an IPv6 address keeps its brackets.
    public let host: String
    /// The port: the URL's, or the scheme's default (80, 443).
    public let port: Int

    /// An origin; `host` is compared without regard to ASCII case.
    public init(isSecure: Bool, host: String, port: Int?) {
        self.isSecure = isSecure
        self.host = String(decoding: host.utf8.map { (0x41...0x5a).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
        self.port = port ?? (isSecure ? 443 : 80)
    }

    /// `http(s)://host:port`.
    public var description: String { "\(isSecure ? "https" : "http")://\(host):\(port)" }
}

/// A user name and password for one origin, from a URL's user information or from git's
/// credential helpers. Shown, it names the user and the origin, never the password.
public struct HTTPCredential: Hashable, Sendable, CustomStringConvertible {
    /// The origin the credential was given for: the only one it is sent to.
    public let origin: HTTPOrigin
    /// The user name.
    public var username: String
    /// The password, if known.
    public var password: Secret?

    /// A credential for `origin`.
    public init(origin: HTTPOrigin, username: String, password: Secret?) {
        self.origin = origin
        self.username = username
        self.password = password
    }

    /// `<user> for <origin>`.
    public var description: String { "\(username) for \(origin)" }
}
