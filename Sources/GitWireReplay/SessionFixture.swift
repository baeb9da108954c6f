import GitWire

extension Session {
    /// The first line of every fixture, with the format's version.
    static let magic = "gitwire-session 1"

    /// The session as fixture text (the format is described in `Fixtures/README.md`): a header of
    /// `key value` lines, then each event as a `client` or `server` line followed by its bytes,
    /// one pkt-line per line.
    public var fixtureText: String {
        var text: [UInt8] = []
        writeFixtureText { text += $0 }
        return String(decoding: text, as: UTF8.self)
    }

    /// Hands ``fixtureText`` to `write` in pieces of about 1 MiB, in order, so that writing a
    /// large session never holds its whole text (nor a line or token of it per packet) at once.
    func writeFixtureText(_ write: (ArraySlice<UInt8>) throws -> Void) rethrows {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 20 + 128 * 1024)
        func line(_ text: String) {
            buffer += text.utf8
            buffer.append(0x0a)
        }
        func token(_ token: FixtureToken) throws {
            buffer += "  ".utf8
            line(token.line)
            if buffer.count >= 1 << 20 {
                try write(buffer[...])
                buffer.removeAll(keepingCapacity: true)
            }
        }
        line(Self.magic)
        line("transport \(Self.headerText(transport))")
        line("service \(Self.headerText(service))")
        line("path \(Self.headerText(path))")
        line("protocol-version \(protocolVersion.rawValue)")
        if let host { line("host \(Self.headerText(host))") }
        if let command { line("command \(Self.headerText(command))") }
        line("")
        for event in events {
            switch event {
            case .bytes(let direction, let bytes):
                line(direction.rawValue)
                try FixtureToken.forEachToken(in: bytes, token)
            case .end(let direction):
                line(direction.rawValue)
                try token(.end)
            case .http(let direction, let text):
                line(direction.rawValue)
                try token(.http(text))
            }
        }
        try write(buffer[...])
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
        try FileSystem.writeAtomically(to: path, permissions: 0o644, temporaryPrefix: ".session-") { write in
            try writeFixtureText(write)
        }
    }
}
