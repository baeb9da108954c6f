/// The protocol v2 `ls-refs` command: its request and the parsing of its answer.
public struct LsRefsCommand: Hashable, Sendable {
    /// Only refs starting with one of these are listed (all when empty).
    public var refPrefixes: [String]
    /// `server-option`s passed to the server.
    public var serverOptions: [String]
    /// Ask for peeled tags.
    public var peel = true
    /// Ask for symref targets.
    public var symrefs = true
    /// Ask for an unborn `HEAD` (when the server supports it).
    public var unborn = true
    /// The `agent=` value sent when the server advertises `agent`.
    public var agent: String

    /// Makes an `ls-refs` command.
    public init(refPrefixes: [String] = [], serverOptions: [String] = [], agent: String = GitWireInfo.agent) {
        self.refPrefixes = refPrefixes
        self.serverOptions = serverOptions
        self.agent = agent
    }

    /// The request, in git's order, for a server with `capabilities`.
    public func request(for capabilities: Capabilities) throws -> [PktLine] {
        var lines: [PktLine] = [.text("command=ls-refs")]
        // git writes these three without a trailing newline; so do we, byte for byte.
        if capabilities.contains("agent") {
            lines.append(.data(Array("agent=\(GitWireInfo.sanitizedAgent(agent))".utf8)))
        }
        if let format = try Self.objectFormat(of: capabilities) {
            lines.append(.data(Array("object-format=\(format.name)".utf8)))
        }
        if !serverOptions.isEmpty {
            guard capabilities.contains("server-option") else {
                throw FetchError(.usage, "server doesn't support 'server-option'")
            }
            lines += serverOptions.map { .data(Array("server-option=\($0)".utf8)) }
        }
        lines.append(.delimiter)
        if peel { lines.append(.text("peel")) }
        if symrefs { lines.append(.text("symrefs")) }
        if unborn && capabilities.supports("ls-refs", feature: "unborn") { lines.append(.text("unborn")) }
        lines += refPrefixes.map { .text("ref-prefix \($0)") }
        lines.append(.flush)
        return lines
    }

    /// The object format a v2 server's capabilities name (`object-format=<name>`), nil when they
    /// name none (the server is SHA-1, and git sends no `object-format`). Throws, as git does,
    /// for a name it does not know: `unknown object format '<name>' specified by server`.
    public static func objectFormat(of capabilities: Capabilities) throws -> ObjectFormat? {
        guard let name = capabilities.value(of: "object-format") else { return nil }
        guard let format = ObjectFormat(name) else {
            throw FetchError(.protocol, "unknown object format '\(escapedForDisplay(name.utf8))' specified by server")
        }
        return format
    }

    /// Parses one line of the response: `<oid> <name>` or `unborn <name>`, then attributes
    /// `symref-target:<ref>` and `peeled:<oid>` in any order. Object ids are of `format`.
    public static func parseRef(_ line: [UInt8], format: ObjectFormat) throws -> Ref {
        try parseRef(line[...], format: format)
    }

    /// Parses one line of the response, as the array form does, from a view of the bytes received.
    public static func parseRef(_ line: ArraySlice<UInt8>, format: ObjectFormat) throws -> Ref {
        var body = line
        if body.last == 0x0a { body = body.dropLast() }
        let fields = body.split(separator: 0x20, omittingEmptySubsequences: false)
        guard fields.count >= 2, !fields[1].isEmpty else {
            throw ProtocolError("invalid ls-refs response", line: Array(line))
        }
        var ref: Ref
        if fields[0].elementsEqual("unborn".utf8) {
            ref = Ref(name: Array(fields[1]), objectID: nil)
        } else {
            guard let id = ObjectID(hex: fields[0], format: format) else {
                throw ProtocolError("invalid ls-refs response", line: Array(line))
            }
            ref = Ref(name: Array(fields[1]), objectID: id)
        }
        for field in fields.dropFirst(2) {
            if field.starts(with: "symref-target:".utf8) {
                ref.symrefTarget = String(decoding: field.dropFirst(14), as: UTF8.self)
            } else if field.starts(with: "peeled:".utf8) {
                guard let peeled = ObjectID(hex: field.dropFirst(7), format: format) else {
                    throw ProtocolError("invalid ls-refs response", line: Array(line))
                }
                ref.peeled = peeled
            }
        }
        return ref
    }
}

/// Facts about this build of gitwire.
public enum GitWireInfo {
    /// gitwire's version.
    public static let version = "0.1.0"
    /// The user agent gitwire sends in `agent=`.
    public static let agent = "gitwire/\(version)"

    /// `agent` as git sends it in `agent=` (`git_user_agent_sanitized`): bytes outside printable
    /// ASCII, and spaces, become `.`.
    package static func sanitizedAgent(_ agent: String) -> String {
        String(decoding: agent.utf8.map { (0x21...0x7e).contains($0) ? $0 : UInt8(ascii: ".") }, as: UTF8.self)
    }
}
