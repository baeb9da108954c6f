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
        if capabilities.contains("agent") { lines.append(.data(Array("agent=\(agent)".utf8))) }
        if let format = capabilities.value(of: "object-format") {
            guard format == "sha1" else {
                throw ProtocolError("unsupported object format '\(escapedForDisplay(format.utf8))'")
            }
            lines.append(.data(Array("object-format=sha1".utf8)))
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

    /// Parses one line of the response: `<oid> <name>` or `unborn <name>`, then attributes
    /// `symref-target:<ref>` and `peeled:<oid>` in any order.
    public static func parseRef(_ line: [UInt8]) throws -> Ref {
        var body = line[...]
        if body.last == 0x0a { body = body.dropLast() }
        let fields = body.split(separator: 0x20, omittingEmptySubsequences: false)
        guard fields.count >= 2, !fields[1].isEmpty else { throw ProtocolError("invalid ls-refs response", line: line) }
        var ref: Ref
        if fields[0].elementsEqual("unborn".utf8) {
            ref = Ref(name: Array(fields[1]), objectID: nil)
        } else {
            guard let id = ObjectID(hex: fields[0]) else { throw ProtocolError("invalid ls-refs response", line: line) }
            ref = Ref(name: Array(fields[1]), objectID: id)
        }
        for field in fields.dropFirst(2) {
            if field.starts(with: "symref-target:".utf8) {
                ref.symrefTarget = String(decoding: field.dropFirst(14), as: UTF8.self)
            } else if field.starts(with: "peeled:".utf8) {
                guard let peeled = ObjectID(hex: field.dropFirst(7)) else {
                    throw ProtocolError("invalid ls-refs response", line: line)
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
}
