import GitWire

extension Session {
    /// The first line of every fixture, with the format's version.
    static let magic = "gitwire-session 1"

    /// The session as fixture text (the format is described in `Fixtures/README.md`): a header of
    /// `key value` lines, then each event as a `client` or `server` line followed by its bytes,
    /// one pkt-line per line.
    public var fixtureText: String {
        var lines = [Self.magic, "transport \(transport)", "service \(service)", "path \(path)"]
        lines.append("protocol-version \(protocolVersion.rawValue)")
        if let host { lines.append("host \(host)") }
        if let command { lines.append("command \(command)") }
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
        guard let transport = header["transport"], let service = header["service"], let path = header["path"],
            let versionText = header["protocol-version"], let number = Int(versionText),
            let version = ProtocolVersion(rawValue: number)
        else {
            throw FixtureFormatError(line: 2, message: "header needs transport, service, path and protocol-version")
        }
        self.init(
            transport: String(transport), service: String(service), path: String(path), protocolVersion: version,
            host: header["host"].map(String.init), command: header["command"].map(String.init))
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
