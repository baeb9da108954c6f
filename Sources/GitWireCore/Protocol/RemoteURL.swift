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
            if let at = authority.lastIndex(ofByte: "@") {
                user = String(authority[..<at])
                authority = authority[authority.utf8.index(after: at)...]
            }
            (host, port) = try Self.splitHostAndPort(authority, text: text)
            if scheme != .http && scheme != .https && path.hasBytePrefix("/~") {
                path = String(path[path.utf8.index(after: path.startIndex)...])
            }
        } else if Self.isScpLike(text), let colon = Self.scpColon(text) {
            scheme = .ssh
            var authority = text[..<colon]
            if let at = authority.lastIndex(ofByte: "@") {
                user = String(authority[..<at])
                authority = authority[authority.utf8.index(after: at)...]
            }
            if authority.hasBytePrefix("["), authority.utf8.last == UInt8(ascii: "]") {
                authority = Substring(authority.utf8.dropFirst().dropLast())
            }
            host = String(authority)
            path = String(text[text.utf8.index(after: colon)...])
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

    private static func scpColon(_ text: String) -> String.Index? {
        // A bracketed host starts the text or follows `user@`, as git's `host_end` has it.
        let bytes = text.utf8
        let bracket =
            text.hasBytePrefix("[")
            ? text.startIndex
            : bytes.indices.first {
                bytes[$0] == UInt8(ascii: "@") && bytes[bytes.index(after: $0)...].first == UInt8(ascii: "[")
            }
            .map { bytes.index($0, offsetBy: 2) }
        if let bracket, let close = text[bracket...].firstIndex(ofByte: "]") {
            return text[close...].firstIndex(ofByte: ":")
        }
        return text.firstIndex(ofByte: ":")
    }

    /// `host:path` is ssh only when the colon comes before any slash (else it is a local path).
    private static func isScpLike(_ text: String) -> Bool {
        guard let colon = scpColon(text) else { return false }
        if text.hasBytePrefix("[") {
            guard let close = text.firstIndex(ofByte: "]") else { return false }
            return text[text.utf8.index(after: close)...].hasBytePrefix(":")
        }
        return text[..<colon].firstIndex(ofByte: "/") == nil && colon != text.startIndex
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
