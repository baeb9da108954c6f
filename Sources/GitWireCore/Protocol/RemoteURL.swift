/// Where a remote repository is, parsed the way git reads `<repository>` arguments:
/// `git://host[:port]/path`, `ssh://[user@]host[:port]/path`, `[user@]host:path` (ssh),
/// `file:///path`, `http(s)://…`, or a local path.
///
/// A URL may carry a password (`https://user:password@host/…`). It is kept as a ``Secret``, and
/// the URL shows itself (``description``, ``withoutCredentials(_:)``) without its user
/// information, as git shows URLs: that is the one way gitwire shows a URL anywhere (messages,
/// warnings, `From` lines, batch output, recordings, directory names).
public struct RemoteURL: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
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
    /// The user: for ssh, and the user name of an `http(s)://` URL.
    public var user: String?
    /// The password of an `http(s)://user:password@…` URL.
    public var password: Secret?
    /// The host name or address (IPv6 without brackets); nil for local repositories.
    public var host: String?
    /// The port, if the URL gives one.
    public var port: Int?
    /// The repository's path on the server (or on this machine).
    public var path: String
    /// The text the URL was parsed from, user information and all: it may hold a password, so it
    /// is for making the connection (and `remote.origin.url`, as git writes it), never for showing.
    /// Show ``description``.
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
            if scheme == .http || scheme == .https {
                // As libcurl reads it: the authority split first, then its parts decoded, so that an
                // escaped '/' or '@' in a password stays in the password.
                let location = try SmartHTTP.Location(text)
                user = location.username
                password = location.password
                (host, port) = try Self.splitHostAndPort(Substring(location.hostAndPort), text: text)
                path = "/" + Self.percentDecoded(Substring(location.path))
                return
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
                // git hands `user:password@host` to ssh as the host, and ssh sends `user:password`
                // to the server as the user name: gitwire runs no ssh with a password in it.
                if let at = authority.lastIndex(ofByte: "@"), authority[..<at].firstIndex(ofByte: ":") != nil {
                    throw RemoteURLError(
                        text: text,
                        reason:
                            "an ssh URL with a password is refused (ssh would send it to the server as the user name)")
                }
                let badPort: Substring?
                (user, host, port, badPort) = Self.sshUserHostAndPort(authority)
                // Where git would pass `host:<text>` to ssh as a host name, gitwire names the
                // port it cannot use (issue #11).
                if let badPort { throw RemoteURLError(text: text, reason: Self.invalidPortReason(badPort, in: text)) }
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

    /// `text` as gitwire shows a repository URL anywhere: without user information, as git
    /// anonymises URLs (`transport_anonymize_url`). In a `scheme://` URL everything from the
    /// `://` to the last `@` before the next `/` goes (git stops at the first `@`, which leaves the
    /// rest of a password that holds one), and so in a `//host…` reference; `user@host:path`
    /// (text with a `:` before any `/`)
    /// loses `user@` the same way; local paths are left as they are. The user name goes too: it
    /// says whose the password is.
    public static func withoutCredentials(_ text: String) -> String {
        let bytes = Array(text.utf8)
        let start: Int
        if let separator = (0..<max(0, bytes.count - 2)).first(where: { bytes[$0..<($0 + 3)].elementsEqual("://".utf8) }
        ) {
            start = separator + 3
        } else if bytes.starts(with: "//".utf8) {
            start = 2
        } else if let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
            bytes.firstIndex(of: UInt8(ascii: "/")).map({ colon < $0 }) ?? true
        {
            start = 0
        } else {
            return text
        }
        let end = bytes[start...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.count
        guard let at = bytes[start..<end].lastIndex(of: UInt8(ascii: "@")) else { return text }
        return String(decoding: bytes[..<start] + bytes[(at + 1)...], as: UTF8.self)
    }

    /// The directory `git clone` makes for `repository` when none is given (git's
    /// `git_url_basename`): the last path component, without user information (everything up to
    /// the last `@` before the first `/`), trailing slashes, `/.git` or `.git`, and a port when
    /// there is only a host, with `.git` added for a bare clone, runs of control characters and
    /// spaces made one space. Nil when no name is left (git: "No directory name could be guessed").
    package static func cloneDirectoryName(for repository: String, bare: Bool) -> String? {
        let bytes = Array(repository.utf8)
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0a || $0 == 0x0d }
        let slash = UInt8(ascii: "/")
        var start = 0
        var end = bytes.count
        if let separator = (0..<max(0, bytes.count - 2)).first(where: { bytes[$0..<($0 + 3)].elementsEqual("://".utf8) }
        ) {
            start = separator + 3
        }
        var index = start
        while index < end && bytes[index] != slash {
            if bytes[index] == UInt8(ascii: "@") { start = index + 1 }
            index += 1
        }
        while start < end && (bytes[end - 1] == slash || isSpace(bytes[end - 1])) { end -= 1 }
        if end - start > 5 && bytes[end - 5] == slash && bytes[(end - 4)..<end].elementsEqual(".git".utf8) {
            end -= 5
            while start < end && bytes[end - 1] == slash { end -= 1 }
        }
        if !bytes[start..<end].contains(slash) && bytes[start..<end].contains(UInt8(ascii: ":")) {
            var digits = end
            while start < digits && (0x30...0x39).contains(bytes[digits - 1]) { digits -= 1 }
            if start < digits && bytes[digits - 1] == UInt8(ascii: ":") { end = digits - 1 }
        }
        var componentStart = end
        while start < componentStart && bytes[componentStart - 1] != slash
            && bytes[componentStart - 1] != UInt8(ascii: ":")
        {
            componentStart -= 1
        }
        var name = Array(bytes[componentStart..<end])
        if name.count >= 4 && name.suffix(4).elementsEqual(".git".utf8) { name.removeLast(4) }
        if name.isEmpty || name == [slash] { return nil }
        if bare { name += Array(".git".utf8) }
        var cleaned: [UInt8] = []
        var previousSpace = true
        for byte in name {
            let character = byte < 0x20 ? 0x20 : byte
            if isSpace(character) {
                if previousSpace { continue }
                previousSpace = true
            } else {
                previousSpace = false
            }
            cleaned.append(character)
        }
        if previousSpace, !cleaned.isEmpty { cleaned.removeLast() }
        return String(decoding: cleaned, as: UTF8.self)
    }

    /// `scheme://rest` split, when `text` has that form (letters, digits, `+`, `-` before it).

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
            throw RemoteURLError(text: text, reason: invalidPortReason(portText, in: text))
        }
        return (String(host), port)
    }

    /// `invalid port number '<port>'`, the port left out when the URL holds an `@`: in a URL
    /// whose user information was not escaped as it should be, what reads as a port may be part
    /// of a password.
    package static func invalidPortReason(_ port: Substring, in text: String) -> String {
        text.firstIndex(ofByte: "@") == nil ? "invalid port number '\(port)'" : "invalid port number"
    }

    /// The host as the URL wrote it, with the port if the URL has one: git's `host=` value.
    public var hostHeader: String {
        guard let host else { return "" }
        let written = host.firstIndex(ofByte: ":") != nil ? "[\(host)]" : host
        return port.map { "\(written):\($0)" } ?? written
    }
    /// The URL as shown to users and in logs: ``text`` without its user information
    /// (``withoutCredentials(_:)``).
    public var description: String { Self.withoutCredentials(text) }

    /// `RemoteURL(<description>)`.
    public var debugDescription: String { "RemoteURL(\(description))" }

    /// The parts, and ``description`` in place of ``text``: `dump` and reflection show no password.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "scheme": scheme, "user": user as Any, "password": password as Any, "host": host as Any,
                "port": port as Any, "path": path, "text": description,
            ], displayStyle: .struct)
    }
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
