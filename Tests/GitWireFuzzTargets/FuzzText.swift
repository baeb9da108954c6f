import GitWire
import GitWireReplay

/// Text the user or a recording hands gitwire: fixtures, URLs, refspecs, patterns, gzip bodies.
enum FuzzText {
    static func fixture(_ data: [UInt8]) {
        let text = String(decoding: data, as: UTF8.self)
        guard let session = try? Session(fixtureText: text) else { return }
        // Whatever reads must write back to text that reads as the same session.
        let written = session.fixtureText
        guard let again = try? Session(fixtureText: written) else {
            fuzzInvariant(false, "a session's own fixture text does not read back:\n\(written)")
            return
        }
        fuzzInvariant(again == session, "a session changes through its fixture text:\n\(written)")
    }

    static func url(_ data: [UInt8]) {
        var input = FuzzInput(data)
        let flags = input.byte()
        let text = String(decoding: input.rest(), as: UTF8.self)
        _ = RemoteURL.withoutCredentials(text)
        _ = try? Refspec(text).destination(for: "refs/heads/main")
        _ = Wildmatch.matches(Array(text.utf8), Array("refs/heads/feature/x".utf8))
        _ = Wildmatch.matches(Array("refs/*/f*/**".utf8), Array(text.utf8))
        if let location = try? SmartHTTP.Location(text) {
            fuzzInvariant(!location.base.contains("@") || location.username == nil, "credentials left in \(location.base)")
            _ = SmartHTTP.baseAfterRedirect(effectiveURL: text, service: .uploadPack)
        }
        guard let url = try? RemoteURL(text) else { return }
        guard url.scheme == .ssh, let host = url.host else { return }
        let variant = SSHTransport.Variant.allCases[Int(flags) % SSHTransport.Variant.allCases.count]
        let transport = SSHTransport(
            host: host, user: url.user, port: url.port,
            addressFamily: flags & 0x10 != 0 ? .ipv4 : nil, command: SSHCommand(prefix: ["ssh"], variant: variant))
        guard let arguments = try? transport.arguments(for: ServiceRequest(path: url.path)) else { return }
        // Nothing from the URL may reach ssh as an option: the destination cannot start with '-',
        // and the remote command is the last argument, the path quoted for the remote shell.
        let destination = arguments[arguments.count - 2]
        fuzzInvariant(!destination.hasPrefix("-"), "ssh destination taken as an option: \(arguments)")
        let command = arguments[arguments.count - 1]
        fuzzInvariant(command.hasPrefix("git-upload-pack '") && command.hasSuffix("'"), "remote command \(command)")
    }

    static func gunzip(_ data: [UInt8]) {
        var input = FuzzInput(data)
        let limit = input.uint16()
        guard let plain = try? GitWirePOSIX.gunzip(input.rest(), limit: limit) else { return }
        fuzzInvariant(plain.count <= limit, "gunzip gave \(plain.count) bytes past its limit of \(limit)")
    }
}
