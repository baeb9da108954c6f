extension Remote {
    /// A remote named in `configuration` (`origin`: its first `remote.<name>.url`), or at `url`
    /// (any form git accepts), with `configuration` applied where git applies it:
    ///
    /// - `url.<base>.insteadOf` rewrites the URL (a remote's configured URLs too);
    /// - `protocol.allow`, `protocol.<name>.allow`, `GIT_ALLOW_PROTOCOL` and
    ///   `GIT_PROTOCOL_FROM_USER` decide whether its transport may be used at all (git's rules:
    ///   see ``TransportPolicy``), or this throws ``TransportNotAllowedError``;
    /// - `protocol.version` becomes ``protocolVersion``;
    /// - `remote.<name>.uploadpack` is the command run for `git-upload-pack` (local and ssh);
    /// - `core.sshCommand` and `ssh.variant` choose the ssh program, after `GIT_SSH_COMMAND` and
    ///   `GIT_SSH_VARIANT` and before `GIT_SSH`, as in git;
    /// - `http.<url>.*`, matched against the URL as git matches it, sets the HTTP transport's
    ///   ``HTTPOptions`` (see ``HTTPOptions/init(configuration:url:remoteName:environment:)``),
    ///   `remote.<name>.proxy` overriding `http.proxy`; `credential.*` reaches `git credential`.
    ///
    /// `Remote(url)` (``GitConfiguration/none``, the default) reads no configuration: its
    /// transports still honour the environment variables git's transports honour, the protocol
    /// rules among them. See <doc:Configuration>.
    ///
    /// - Parameters:
    ///   - url: a remote's name or a URL, as `git ls-remote` takes its argument: the name of a
    ///     remote configured with a URL, else a URL.
    ///   - configuration: what to apply (loaded with
    ///     ``GitConfiguration/load(gitDirectory:environment:commandLine:)``, or built).
    ///   - environment: the environment git's variables are read from; the process's own when nil.
    ///   - timeout: bounds the connect and every wait for data (see ``timeout``).
    /// - Throws: ``RemoteURLError`` for a URL gitwire cannot use, ``ConfigError`` with git's
    ///   message for a setting git would refuse, ``TransportNotAllowedError``.
    public init(
        _ url: String, configuration: GitConfiguration = .none, environment: [String: String]? = nil,
        timeout: Duration? = nil
    ) throws {
        let environment = environment ?? Environment.all()
        var name: String?
        var location = try configuration.rewrittenURL(url)
        if let configured = try configuration.remoteURLs(named: url), let first = configured.urls.first {
            name = url
            location = first
        }
        let parsed = try RemoteURL(location)
        let policy = TransportPolicy(
            entries: configuration.entries, allowProtocol: environment["GIT_ALLOW_PROTOCOL"],
            protocolFromUser: environment["GIT_PROTOCOL_FROM_USER"])
        try policy.check(parsed.scheme.transportName)
        if parsed.scheme == .http || parsed.scheme == .https {
            // git's HTTP transport tells libcurl which protocols it may use and be redirected to,
            // asking the rules about each: their errors (a bad value, a bad
            // GIT_PROTOCOL_FROM_USER) are git's errors here too.
            for name in ["http", "https", "ftp", "ftps"] { _ = try policy.allows(name, fromUser: false) }
            for name in ["http", "https", "ftp", "ftps"] { _ = try policy.allows(name) }
        }
        let uploadPack = try name.flatMap { try configuration.string("remote.\($0).uploadpack") }
        let transport: any Transport
        switch parsed.scheme {
        case .git:
            transport = try parsed.makeTransport()
        case .file:
            transport = LocalTransport(uploadPack: uploadPack ?? "git-upload-pack")
        case .ssh:
            transport = SSHTransport(
                host: parsed.host ?? "", user: parsed.user, port: parsed.port,
                uploadPack: uploadPack ?? "git-upload-pack",
                command: try SSHCommand(environment: environment, configuration: configuration))
        case .http, .https:
            transport = try HTTPTransport(
                url: parsed.text,
                options: try HTTPOptions(
                    configuration: configuration, url: parsed.text, remoteName: name, environment: environment))
        }
        self.init(url: parsed, transport: transport, timeout: timeout)
        self.name = name
        protocolVersion = try configuration.protocolVersion()
    }
}

extension RemoteURL.Scheme {
    /// The name git's protocol rules know this transport by: `file` (local paths too), `git`,
    /// `ssh`, `http`, `https`.
    public var transportName: String {
        switch self {
        case .file: "file"
        case .git: "git"
        case .ssh: "ssh"
        case .http: "http"
        case .https: "https"
        }
    }
}

extension GitConfiguration {
    /// `protocol.version` (`0`, `1` or `2`), or nil when it is not set. Throws git's `unknown
    /// value for config 'protocol.version': 3` for anything else.
    public func protocolVersion() throws(ConfigError) -> ProtocolVersion? {
        guard let value = try string("protocol.version") else { return nil }
        guard let number = Int(value), String(number) == value, let version = ProtocolVersion(rawValue: number)
        else { throw .unknownValue(name: "protocol.version", value: value) }
        return version
    }

    /// The variables the programs gitwire runs that read git's configuration themselves (`git
    /// credential`) need to read this one as it was read: its command-line entries as
    /// `GIT_CONFIG_PARAMETERS` (and no `GIT_CONFIG_COUNT`, whose entries are among them), and
    /// `GIT_DIR` when it was read for a repository. Empty for a configuration with neither.
    public var childEnvironment: [String: String?] {
        var environment: [String: String?] = [:]
        var parameters: String?
        for entry in entries where entry.scope == .command {
            parameters = ConfigParameters.appending(key: entry.name, value: entry.value, to: parameters)
        }
        if let parameters {
            environment["GIT_CONFIG_PARAMETERS"] = .some(parameters)
            environment["GIT_CONFIG_COUNT"] = .some(nil)
        }
        if let gitDirectory { environment["GIT_DIR"] = .some(gitDirectory) }
        return environment
    }
}

extension SSHCommand {
    /// git's choice of ssh program with `configuration` applied (connect.c): `GIT_SSH_COMMAND`,
    /// else `core.sshCommand` (both run through the shell), else `GIT_SSH`, else `ssh`; the variant
    /// from `GIT_SSH_VARIANT`, else `ssh.variant`, else from the program's name. See
    /// ``fromEnvironment(_:)``.
    public init(environment: [String: String], configuration: GitConfiguration) throws(ConfigError) {
        var command = environment["GIT_SSH_COMMAND"]
        if command == nil { command = try configuration.string("core.sshCommand") }
        var variant = environment["GIT_SSH_VARIANT"]
        if variant == nil { variant = try configuration.string("ssh.variant") }
        self = SSHCommand.fromEnvironment { name in
            switch name {
            case "GIT_SSH_COMMAND": command
            case "GIT_SSH_VARIANT": variant
            default: environment[name]
            }
        }
    }
}

extension HTTPOptions {
    /// The options git's HTTP transport takes from `configuration` for the repository at `url`
    /// (`http.c`): every `http.<key>` and `http.<url>.<key>` entry that matches `url` as
    /// `urlmatch.c` matches it (the more specific URL wins, and a multi-valued key gathers the
    /// values of the entries at least as specific as the best so far), then the environment
    /// variables that override them.
    ///
    /// - `http.extraHeader`: every value, in order; an empty value empties the list.
    ///   Secrets: see ``extraHeaders``.
    /// - `http.sslVerify`, `http.sslCAInfo`, `http.sslCAPath` (`~` expanded); then
    ///   `GIT_SSL_NO_VERIFY`, `GIT_SSL_CAINFO`, `GIT_SSL_CAPATH`.
    /// - `http.proxy` (or `remote.<name>.proxy`): `[scheme://][user[:password]@]host[:port]`,
    ///   the scheme naming the kind (`http`, `https`, `socks4`, `socks4a`, `socks5`, `socks5h`),
    ///   an empty value meaning no proxy even if the environment names one;
    ///   `http.proxyAuthMethod` (or `remote.<name>.proxyAuthMethod`, then
    ///   `GIT_HTTP_PROXY_AUTHMETHOD`); hosts in `no_proxy`/`NO_PROXY` are reached directly.
    ///   Without it, libcurl reads `http_proxy`, `https_proxy`, `all_proxy` itself.
    /// - `http.version` (`HTTP/1.1`, `HTTP/2`), `http.followRedirects` (`initial`, `true`,
    ///   `false`), `http.userAgent` (then `GIT_HTTP_USER_AGENT`; without either, `GIT_USER_AGENT`
    ///   as git's `git_user_agent()`, else ``defaultUserAgent``), `http.lowSpeedLimit` and
    ///   `http.lowSpeedTime` (then `GIT_HTTP_LOW_SPEED_LIMIT` and `GIT_HTTP_LOW_SPEED_TIME`).
    ///
    /// Throws ``ConfigError`` with git's message for a value git refuses.
    public init(
        configuration: GitConfiguration, url: String, remoteName: String? = nil, environment: [String: String]? = nil
    ) throws {
        let environment = environment ?? Environment.all()
        self.init()
        // git's `User-Agent` is git_user_agent() unless configured: GIT_USER_AGENT when set.
        if let agent = environment["GIT_USER_AGENT"] { userAgent = agent }
        var version: String?
        var proxy: String?
        var proxyAuthMethod: String?
        var lowSpeedLimit = 0
        var lowSpeedTime = 0
        for entry in try URLMatch.collected(section: "http", url: url, entries: configuration.entries) {
            func string() throws(ConfigError) -> String {
                guard let value = entry.value else {
                    throw .badVariable(
                        name: entry.name, origin: entry.origin, line: entry.line,
                        reason: "missing value for '\(entry.name)'")
                }
                return value
            }
            func bool() throws(ConfigError) -> Bool {
                guard let value = ConfigValue.bool(entry.value) else {
                    throw .badBoolean(name: entry.name, value: entry.value)
                }
                return value
            }
            func int() throws(ConfigError) -> Int {
                switch ConfigValue.integer(entry.value ?? "", maximum: Int64(Int32.max)) {
                case .success(let value): return Int(value)
                case .failure(let problem):
                    throw .badNumber(
                        name: entry.name, value: entry.value, origin: entry.origin, outOfRange: problem == .outOfRange)
                }
            }
            switch entry.key {
            case "version": version = try string()
            case "sslverify": tls.verify = try bool()
            case "sslcainfo": tls.caInfo = try configuration.expandedPath(try string())
            case "sslcapath": tls.caPath = try configuration.expandedPath(try string())
            case "lowspeedlimit": lowSpeedLimit = try int()
            case "lowspeedtime": lowSpeedTime = try int()
            case "proxy": proxy = try string()
            case "proxyauthmethod": proxyAuthMethod = try string()
            case "useragent": userAgent = try string()
            case "postbuffer":
                // Read as git reads it (its errors are git's), raised to one packet at least
                // (git's LARGE_PACKET_MAX, the longest pkt-line).
                switch ConfigValue.integer(entry.value ?? "") {
                case .success(let value):
                    if value < 0 {
                        configurationWarnings.append(
                            "negative value for http.postBuffer; defaulting to \(PktLine.maxLength)")
                    }
                    postBuffer = Int(max(value, Int64(PktLine.maxLength)))
                case .failure(let problem):
                    throw ConfigError.badNumber(
                        name: entry.name, value: entry.value, origin: entry.origin, outOfRange: problem == .outOfRange)
                }
            case "extraheader":
                let value = try string()
                if value.isEmpty { extraHeaders = [] } else { extraHeaders.append(Secret(value)) }
            case "followredirects":
                followRedirects = entry.value == "initial" ? .initial : (try bool() ? .always : .never)
            default: break
            }
        }
        if let remoteName {
            if let remoteProxy = try configuration.string("remote.\(remoteName).proxy") { proxy = remoteProxy }
            if let method = try configuration.string("remote.\(remoteName).proxyAuthMethod") {
                proxyAuthMethod = method
            }
        }
        if environment["GIT_SSL_NO_VERIFY"] != nil { tls.verify = false }
        if let path = environment["GIT_SSL_CAPATH"], !path.isEmpty { tls.caPath = path }
        if let path = environment["GIT_SSL_CAINFO"], !path.isEmpty { tls.caInfo = path }
        if let agent = environment["GIT_HTTP_USER_AGENT"], !agent.isEmpty { userAgent = agent }
        if let limit = environment["GIT_HTTP_LOW_SPEED_LIMIT"] { lowSpeedLimit = Self.strtol(limit) }
        if let time = environment["GIT_HTTP_LOW_SPEED_TIME"] { lowSpeedTime = Self.strtol(time) }
        if lowSpeedLimit > 0 && lowSpeedTime > 0 {
            lowSpeed = HTTPLowSpeedLimit(bytesPerSecond: lowSpeedLimit, seconds: lowSpeedTime)
        }
        if let version {
            if let known = HTTPVersion(rawValue: version) {
                httpVersion = known
            } else {
                configurationWarnings.append("unknown value given to http.version: '\(version)'")
            }
        }
        if let method = environment["GIT_HTTP_PROXY_AUTHMETHOD"] { proxyAuthMethod = method }
        if let proxy {
            var setting = try HTTPProxy(gitValue: proxy)
            if !setting.address.isEmpty {
                setting.noProxy = environment["no_proxy"] ?? environment["NO_PROXY"]
                if let proxyAuthMethod {
                    if let method = HTTPProxy.AuthMethod(rawValue: proxyAuthMethod) {
                        setting.authMethod = method
                    } else {
                        configurationWarnings.append(
                            "unsupported proxy authentication method \(proxyAuthMethod): using anyauth")
                    }
                }
            }
            self.proxy = setting
        }
        credentialEnvironment = configuration.childEnvironment
    }

    /// C's `strtol(text, NULL, 10)`, as git reads the low-speed variables: leading blanks, a
    /// sign, digits; 0 when there are none.
    private static func strtol(_ text: String) -> Int {
        var bytes = Array(text.utf8)[...]
        while let first = bytes.first, first == 0x20 || (0x09...0x0d).contains(first) { bytes = bytes.dropFirst() }
        var negative = false
        if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            negative = sign == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        var value = 0
        for byte in bytes {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { break }
            let (product, overflow) = value.multipliedReportingOverflow(by: 10)
            guard !overflow else { return negative ? Int.min : Int.max }
            value = product &+ Int(byte - UInt8(ascii: "0"))
        }
        return negative ? -value : value
    }
}

extension HTTPProxy {
    /// The proxy a git `http.proxy` value names, as git gives it to libcurl: the kind from the
    /// scheme (`socks5h`, `socks5`, `socks4a`, `socks`, `https` prefixes; HTTP otherwise), then
    /// `[user[:password]@]host[:port]` read as a URL (`http://` assumed without a scheme), user
    /// and password percent-decoded and kept apart from the address. The empty value is ``none``.
    /// Throws git's `Invalid proxy URL` (the value shown without its password).
    public init(gitValue value: String) throws(ConfigError) {
        guard !value.isEmpty else {
            self = .none
            return
        }
        let kind: Kind
        if value.hasPrefix("socks5h") {
            kind = .socks5Hostname
        } else if value.hasPrefix("socks5") {
            kind = .socks5
        } else if value.hasPrefix("socks4a") {
            kind = .socks4a
        } else if value.hasPrefix("socks") {
            kind = .socks4
        } else if value.hasPrefix("https") {
            kind = .https
        } else {
            kind = .http
        }
        let bytes = Array(value.utf8)
        var rest = bytes[...]
        if let scheme = Self.find(Array("://".utf8), in: bytes) { rest = bytes[(scheme + 3)...] }
        let hostEnd =
            rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? rest.endIndex
        let authority = rest[..<hostEnd]
        var username: String?
        var password: Secret?
        var host = authority
        if let at = authority.firstIndex(of: UInt8(ascii: "@")) {
            let userInfo = authority[..<at]
            host = authority[(at + 1)...]
            if let colon = userInfo.firstIndex(of: UInt8(ascii: ":")) {
                username = Self.percentDecoded(userInfo[..<colon])
                password = Secret(Self.percentDecoded(userInfo[(colon + 1)...]))
            } else {
                username = Self.percentDecoded(userInfo)
            }
        }
        let address = Self.percentDecoded(host)
        guard !address.isEmpty else {
            throw .invalidURL(reason: "Invalid proxy URL '\(RemoteURL.withoutCredentials(value))'")
        }
        self.init(address: address, kind: kind, username: username, password: password)
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count)
        where haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return start
        }
        return nil
    }

    /// `%XX` sequences decoded, as git's `url_decode_mem` decodes them.
    private static func percentDecoded(_ bytes: ArraySlice<UInt8>) -> String {
        func hex(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var decoded: [UInt8] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.endIndex, let high = hex(bytes[index + 1]),
                let low = hex(bytes[index + 2])
            {
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: decoded, as: UTF8.self)
    }
}
