/// Where a remote repository is, parsed the way git reads `<repository>` arguments:
/// `git://host[:port]/path`, `ssh://[user@]host[:port]/path`, `[user@]host:path` (ssh),
/// `file:///path`, `http(s)://…`, or a local path.
public struct RemoteURL: Hashable, Sendable, CustomStringConvertible {
    /// How the remote is reached.
    public enum Scheme: String, Hashable, Sendable {
        /// `git daemon`, port 9418.
        case git
        /// A local repository (`file://` or a path).
        case file
        /// A remote shell.
        case ssh
        /// Smart HTTP.
        case http
        /// Smart HTTP over TLS.
        case https
    }

    /// How the remote is reached.
    public var scheme: Scheme
    /// The user, for ssh.
    public var user: String?
    /// The host name or address (IPv6 without brackets); nil for local repositories.
    public var host: String?
    /// The port, if the URL gives one.
    public var port: Int?
    /// The repository's path on the server (or on this machine).
    public var path: String
    /// The text the URL was parsed from.
    public let text: String

    /// Parses `text`. Throws ``RemoteURLError`` for URLs it cannot read.
    public init(_ text: String) throws {
        self.text = text
        if let (schemeName, rest) = Self.splitScheme(text) {
            switch schemeName.lowercased() {
            case "git": scheme = .git
            case "file": scheme = .file
            case "ssh", "git+ssh", "ssh+git": scheme = .ssh
            case "http": scheme = .http
            case "https": scheme = .https
            default: throw RemoteURLError(text: text, reason: "unsupported URL scheme '\(schemeName)'")
            }
            let decoded = Self.percentDecoded(rest)
            let authorityEnd = decoded.firstIndex(ofByte: "/") ?? decoded.endIndex
            if authorityEnd == decoded.endIndex && scheme != .http && scheme != .https {
                throw RemoteURLError(text: text, reason: "no path specified; see 'git help pull' for valid url syntax")
            }
            path = authorityEnd == decoded.endIndex ? "/" : String(decoded[authorityEnd...])
            if scheme == .file { return }
            var authority = decoded[..<authorityEnd]
            if scheme == .ssh {
                let badPort: Substring?
                (user, host, port, badPort) = Self.sshUserHostAndPort(authority)
                // Where git would pass `host:<text>` to ssh as a host name, gitwire names the
                // port it cannot use (issue #11).
                if let badPort { throw RemoteURLError(text: text, reason: "invalid port number '\(badPort)'") }
            } else {
                if let at = authority.lastIndex(ofByte: "@") {
                    user = String(authority[..<at])
                    authority = authority[authority.utf8.index(after: at)...]
                }
                (host, port) = try Self.splitHostAndPort(authority, text: text)
            }
            if scheme != .http && scheme != .https && path.hasBytePrefix("/~") {
                path = String(path[path.utf8.index(after: path.startIndex)...])
            }
        } else if Self.isScpLike(text) {
            // git's parse_connect_url: the path starts at the first `:` after a bracketed host
            // (`[host:port]:path`, `user@[host]:path`); git drops the path's first byte when its
            // second is `~` (`host:/~user/x` names `~user/x`).
            scheme = .ssh
            guard let colon = text[Self.hostEnd(text[...])...].firstIndex(ofByte: ":") else {
                throw RemoteURLError(text: text, reason: "no path specified; see 'git help pull' for valid url syntax")
            }
            (user, host, port, _) = Self.sshUserHostAndPort(text[..<colon])
            var pathBytes = text.utf8[text.utf8.index(after: colon)...]
            if pathBytes.count >= 2, pathBytes.dropFirst().first == UInt8(ascii: "~") {
                pathBytes = pathBytes.dropFirst()
            }
            path = String(Substring(pathBytes))
        } else {
            scheme = .file
            path = text
        }
        if host?.isEmpty == true { throw RemoteURLError(text: text, reason: "no host in URL") }
    }

    /// `scheme://rest` split, when `text` has that form (letters, digits, `+`, `-`, `.` before it).
    /// `text` with the user information of a `scheme://user:password@host/…` URL removed, as git
    /// shows URLs in messages; anything else unchanged.
    public static func withoutCredentials(_ text: String) -> String {
        guard let (_, rest) = splitScheme(text) else { return text }
        let authorityEnd =
            rest.utf8.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(ofByte: "@") else { return text }
        return String(text[..<rest.startIndex]) + rest[rest.utf8.index(after: at)...]
    }

    private static func splitScheme(_ text: String) -> (String, Substring)? {
        let bytes = Array(text.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0,
            bytes[colon...].starts(with: Array("://".utf8)),
            bytes[..<colon].allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") })
        else { return nil }
        let name = String(decoding: bytes[..<colon], as: UTF8.self)
        return (name, Substring(text.utf8.dropFirst(colon + 3)))
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// `%XX` escapes decoded, as git does for URLs (`%00` stays as it is, as in git).
    private static func percentDecoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var input = Array(text.utf8)[...]
        while let byte = input.popFirst() {
            if byte == UInt8(ascii: "%"), input.count >= 2, let high = hexValue(input[input.startIndex]),
                let low = hexValue(input[input.startIndex + 1]), high << 4 | low != 0
            {
                bytes.append(high << 4 | low)
                input = input.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// git's `host_end`: where a bracketed host ends (its `]`), the bracket starting the text or
    /// following the first `@[` anywhere in it; else the start of the text.
    private static func hostEnd(_ text: Substring) -> Substring.Index {
        let bytes = text.utf8
        var start = bytes.startIndex
        if let at = bytes.indices.first(where: {
            bytes[$0] == UInt8(ascii: "@") && bytes[bytes.index(after: $0)...].first == UInt8(ascii: "[")
        }) {
            start = bytes.index(after: at)
        }
        guard bytes[start...].first == UInt8(ascii: "["),
            let close = bytes[bytes.index(after: start)...].firstIndex(of: UInt8(ascii: "]"))
        else { return text.startIndex }
        return close
    }

    /// `host:path` is ssh unless it has no `:` or a `/` comes before the first one (git's
    /// `url_is_local_not_ssh`).
    private static func isScpLike(_ text: String) -> Bool {
        guard let colon = text.firstIndex(ofByte: ":"), colon != text.startIndex else { return false }
        return text[..<colon].firstIndex(ofByte: "/") == nil
    }

    /// git's `get_host_and_port` and `get_port` for ssh: brackets removed (`[user@host:2222]`,
    /// `user@[::1]`), a port after them (`[::1]:22`), else a port after the first `:` when only
    /// digits follow it; a trailing `:` dropped. The user is what comes before the last `@`. Also
    /// the text after the host's own `:` when it is no port from 1 to 65535.
    private static func sshUserHostAndPort(_ authority: Substring) -> (String?, String, Int?, Substring?) {
        var bytes = Array(authority.utf8)
        var rest: ArraySlice<UInt8> = []
        let end = hostEnd(authority)
        if end != authority.startIndex {
            let close = authority.utf8.distance(from: authority.startIndex, to: end)
            let open = bytes[..<close].lastIndex(of: UInt8(ascii: "["))!
            rest = bytes[(close + 1)...]
            bytes = Array(bytes[..<open] + bytes[(open + 1)..<close])
        } else {
            rest = bytes[...]
            bytes = []
        }
        var port: Int?
        func portNumber(_ digits: ArraySlice<UInt8>) -> Int? {
            guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy({ (0x30...0x39).contains($0) }),
                let value = Int(String(decoding: digits, as: UTF8.self)), value < 65536
            else { return nil }
            return value
        }
        var badPort: Substring?
        if let colon = rest.firstIndex(of: UInt8(ascii: ":")) {
            let text = rest[(colon + 1)...]
            if !text.isEmpty && (portNumber(text) ?? 0) == 0 { badPort = Substring(decoding: text, as: UTF8.self) }
            if let value = portNumber(text) {
                port = value
                rest = rest[..<colon]
            } else if colon + 1 == rest.endIndex {
                rest = rest[..<colon]
            }
        }
        // Without brackets the host is the whole text; with them, only what they held.
        var host = end != authority.startIndex ? bytes : Array(rest)
        if port == nil, let colon = host.firstIndex(of: UInt8(ascii: ":")), let value = portNumber(host[(colon + 1)...])
        {
            port = value
            host = Array(host[..<colon])
        }
        var user: String?
        if let at = host.lastIndex(of: UInt8(ascii: "@")) {
            user = String(decoding: host[..<at], as: UTF8.self)
            host = Array(host[(at + 1)...])
        }
        return (user, String(decoding: host, as: UTF8.self), port, badPort)
    }

    private static func splitHostAndPort(_ authority: Substring, text: String) throws -> (String, Int?) {
        var host = authority
        var portText: Substring?
        if authority.hasBytePrefix("[") {
            guard let close = authority.firstIndex(ofByte: "]") else {
                throw RemoteURLError(text: text, reason: "unterminated IPv6 address")
            }
            host = authority[authority.utf8.index(after: authority.startIndex)..<close]
            let after = authority[authority.utf8.index(after: close)...]
            if after.hasBytePrefix(":") { portText = Substring(after.utf8.dropFirst()) }
        } else if let colon = authority.lastIndex(ofByte: ":") {
            host = authority[..<colon]
            portText = authority[authority.utf8.index(after: colon)...]
        }
        guard let portText, !portText.isEmpty else { return (String(host), nil) }
        guard let port = Int(portText), (1...65535).contains(port) else {
            throw RemoteURLError(text: text, reason: "invalid port number '\(portText)'")
        }
        return (String(host), port)
    }

    /// The host as the URL wrote it, with the port if the URL has one: git's `host=` value.
    public var hostHeader: String {
        guard let host else { return "" }
        let written = host.firstIndex(ofByte: ":") != nil ? "[\(host)]" : host
        return port.map { "\(written):\($0)" } ?? written
    }
    /// The text shown to users and in logs.
    public var description: String { text }
}

extension StringProtocol {
    /// The first `byte` in the text's UTF-8, found byte by byte as git's C code finds it (a search
    /// by `Character` misses a `:` or `/` that a combining or prepended scalar joins).
    package func firstIndex(ofByte byte: Unicode.Scalar) -> Index? { utf8.firstIndex(of: UInt8(ascii: byte)) }

    /// The last `byte` in the text's UTF-8 (see ``firstIndex(ofByte:)``).
    package func lastIndex(ofByte byte: Unicode.Scalar) -> Index? {
        var found: Index?
        for index in utf8.indices where utf8[index] == UInt8(ascii: byte) { found = index }
        return found
    }

    /// Whether the text's UTF-8 starts with `prefix`'s, compared byte by byte.
    package func hasBytePrefix(_ prefix: String) -> Bool { utf8.starts(with: prefix.utf8) }
}
