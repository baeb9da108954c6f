import GitWire

extension Session {
    /// The first line of every fixture, with the format's version.
    static let magic = "gitwire-session 1"

    /// The session as fixture text (the format is described in `Fixtures/README.md`): a header of
    /// `key value` lines, then each event as a `client` or `server` line followed by its bytes,
    /// one pkt-line per line.
    public var fixtureText: String {
        var lines = [
            Self.magic, "transport \(Self.headerText(transport))", "service \(Self.headerText(service))",
            "path \(Self.headerText(path))",
        ]
        lines.append("protocol-version \(protocolVersion.rawValue)")
        if let host { lines.append("host \(Self.headerText(host))") }
        if let command { lines.append("command \(Self.headerText(command))") }
        lines.append("")
        for event in events {
            switch event {
            case .bytes(let direction, let bytes):
                lines.append(direction.rawValue)
                lines += FixtureToken.tokens(for: bytes).map { "  \($0.line)" }
            case .end(let direction):
                lines.append(direction.rawValue)
                lines.append("  \(FixtureToken.end.line)")
            case .http(let direction, let line):
                lines.append(direction.rawValue)
                lines.append("  \(FixtureToken.http(line).line)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Reads a session from fixture text.
    public init(fixtureText text: String) throws {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().makeIterator()
        guard let (_, first) = lines.next(), first == Self.magic else {
            throw FixtureFormatError(line: 1, message: "expected '\(Self.magic)'")
        }
        var header: [Substring: Substring] = [:]
        var direction: Direction?
        var events: [(Direction, FixtureToken)] = []
        while let (number, line) = lines.next() {
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("  ") {
                guard let current = direction else {
                    throw FixtureFormatError(line: number + 1, message: "bytes before 'client' or 'server'")
                }
                guard let token = FixtureToken(line: line.dropFirst(2)) else {
                    throw FixtureFormatError(
                        line: number + 1, message: "unreadable token '\(line.dropFirst(2).prefix(60))'")
                }
                events.append((current, token))
            } else if let side = Direction(rawValue: String(line)) {
                direction = side
            } else if direction == nil, let space = line.firstIndex(of: " ") {
                header[line[..<space]] = line[line.index(after: space)...]
            } else {
                throw FixtureFormatError(line: number + 1, message: "unexpected line '\(line.prefix(60))'")
            }
        }
        guard header["transport"] != nil, header["service"] != nil, header["path"] != nil,
            let versionText = header["protocol-version"], let number = Int(versionText),
            let version = ProtocolVersion(rawValue: number)
        else {
            throw FixtureFormatError(line: 2, message: "header needs transport, service, path and protocol-version")
        }
        func value(_ key: Substring) throws -> String? {
            guard let raw = header[key] else { return nil }
            guard let text = Self.headerValue(raw) else {
                throw FixtureFormatError(line: 2, message: "badly quoted \(key) '\(raw.prefix(60))'")
            }
            return text
        }
        self.init(
            transport: try value("transport")!, service: try value("service")!, path: try value("path")!,
            protocolVersion: version, host: try value("host"), command: try value("command"))
        for (side, token) in events {
            if token == .end {
                appendEnd(from: side)
            } else if case .http(let line) = token {
                appendHTTP(line, from: side)
            } else {
                append(token.bytes, from: side)
            }
        }
    }

    /// A header value as the fixture shows it: as it is when escaping would change nothing in it
    /// (printable ASCII and UTF-8, no `\\` or `"`), otherwise quoted and escaped like a packet's
    /// payload. A value with a line feed (a request path a client chose, say) so stays on its
    /// line and reads back exactly.
    static func headerText(_ value: String) -> String {
        let escaped = FixtureText.escape(Array(value.utf8))
        return escaped == value ? value : "\"\(escaped)\""
    }

    /// The value a header line's text stands for (see ``headerText(_:)``), or nil when it is
    /// badly quoted.
    static func headerValue(_ text: Substring) -> String? {
        guard text.first == "\"" else { return String(text) }
        guard text.count >= 2, text.last == "\"", let bytes = FixtureText.unescape(text.dropFirst().dropLast()) else {
            return nil
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads a fixture file.
    public init(contentsOfFile path: String) throws {
        try self.init(fixtureText: String(decoding: try FileSystem.read(path), as: UTF8.self))
    }

    /// Writes the fixture to `path` (through a temporary file, so a reader never sees half of it).
    public func write(toFile path: String) throws {
        try FileSystem.writeAtomically(
            Array(fixtureText.utf8)[...], to: path, permissions: 0o644, temporaryPrefix: ".session-")
    }
}
