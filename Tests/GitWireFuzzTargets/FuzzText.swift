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
            // No user information left in the authority of the URL requests go to (a path may
            // hold an '@').
            let parts = location.base.utf8.split(
                separator: UInt8(ascii: "/"), maxSplits: 3, omittingEmptySubsequences: false)
            let authority = parts.count > 2 ? Array(parts[2]) : []
            fuzzInvariant(!authority.contains(UInt8(ascii: "@")), "credentials left in \(location.base)")
            _ = SmartHTTP.baseAfterRedirect(effectiveURL: text, service: .uploadPack)
            // A URL let through has no newline in its user information (the credential protocol
            // is line by line); one refused is shown without its user information.
            do {
                try location.checkCredentialFields(of: text)
                fuzzInvariant(
                    location.username?.utf8.contains(0x0a) != true
                        && location.password?.revealed.utf8.contains(0x0a) != true,
                    "a newline left in the user information of \(location.base)")
            } catch {
                let shown = error.url.utf8.split(
                    separator: UInt8(ascii: "/"), maxSplits: 3, omittingEmptySubsequences: false)
                fuzzInvariant(
                    !(shown.count > 2 ? Array(shown[2]) : []).contains(UInt8(ascii: "@")),
                    "user information shown in \(error.url)")
            }
        }
        guard let url = try? RemoteURL(text) else { return }
        guard url.scheme == .ssh, let host = url.host else { return }
        // Not `auto`: its probe would run a program.
        let variants = SSHTransport.Variant.allCases.filter { $0 != .auto }
        let variant = variants[Int(flags) % variants.count]
        let transport = SSHTransport(
            host: host, user: url.user, port: url.port,
            addressFamily: flags & 0x10 != 0 ? .ipv4 : nil, command: SSHCommand(prefix: ["ssh"], variant: variant))
        guard let arguments = try? transport.arguments(for: ServiceRequest(path: url.path)) else { return }
        // Nothing from the URL may reach ssh as an option: the destination cannot start with '-',
        // and the remote command is the last argument, the path quoted so that the remote shell
        // reads back exactly its bytes. Compared byte by byte, as the shells on both ends read it.
        let destination = arguments[arguments.count - 2]
        fuzzInvariant(destination.utf8.first != UInt8(ascii: "-"), "ssh destination taken as an option: \(arguments)")
        let command = Array(arguments[arguments.count - 1].utf8)
        let prefix = Array("git-upload-pack ".utf8)
        fuzzInvariant(command.starts(with: prefix), "remote command \(command)")
        let words = shellWords(command[prefix.count...])
        fuzzInvariant(
            words == [Array(url.path.utf8)],
            "the remote shell reads \(String(describing: words)) for \(Array(url.path.utf8))")
    }

    /// The words a POSIX shell reads from `text` made only of single-quoted parts, backslash
    /// escapes and plain bytes (what `sq_quote` writes); nil for anything else.
    static func shellWords(_ text: ArraySlice<UInt8>) -> [[UInt8]]? {
        var words: [[UInt8]] = []
        var word: [UInt8]?
        var input = text
        while let byte = input.popFirst() {
            switch byte {
            case UInt8(ascii: "'"):
                guard let close = input.firstIndex(of: UInt8(ascii: "'")) else { return nil }
                word = (word ?? []) + input[..<close]
                input = input[(close + 1)...]
            case UInt8(ascii: "\\"):
                guard let escaped = input.popFirst() else { return nil }
                word = (word ?? []) + [escaped]
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"):
                if let finished = word { words.append(finished) }
                word = nil
            case UInt8(ascii: "\""), UInt8(ascii: "$"), UInt8(ascii: "`"), UInt8(ascii: ";"), UInt8(ascii: "&"),
                UInt8(ascii: "|"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "("), UInt8(ascii: ")"):
                return nil
            default:
                word = (word ?? []) + [byte]
            }
        }
        if let finished = word { words.append(finished) }
        return words
    }

    static func gunzip(_ data: [UInt8]) {
        var input = FuzzInput(data)
        let limit = input.uint16()
        guard let plain = try? GitWirePOSIX.gunzip(input.rest(), limit: limit) else { return }
        fuzzInvariant(plain.count <= limit, "gunzip gave \(plain.count) bytes past its limit of \(limit)")
    }
}
