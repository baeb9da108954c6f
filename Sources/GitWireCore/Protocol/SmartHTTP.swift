/// The fixed parts of git's smart HTTP protocol (`man gitprotocol-http`): where a client sends
/// its requests, which content types each side uses, and how the first response begins. Pure:
/// the HTTP transport uses these to talk to the server, replay uses them to check recordings.
public enum SmartHTTP {
    /// `<base>/info/refs?service=<service>`: the `GET` that starts every session. `base` is the
    /// repository URL without a trailing slash.
    public static func discoveryURL(base: String, service: Service) -> String {
        "\(base)/info/refs?service=\(service.rawValue)"
    }

    /// `<base>/<service>`: where requests are `POST`ed.
    public static func serviceURL(base: String, service: Service) -> String { "\(base)/\(service.rawValue)" }

    /// `application/x-<service>-advertisement`: the content type of a smart server's answer to
    /// the discovery request. A server answering with anything else is a dumb one.
    public static func advertisementType(_ service: Service) -> String {
        "application/x-\(service.rawValue)-advertisement"
    }

    /// `application/x-<service>-request`: the content type of a request body.
    public static func requestType(_ service: Service) -> String { "application/x-\(service.rawValue)-request" }

    /// `application/x-<service>-result`: the content type of a response to a request.
    public static func resultType(_ service: Service) -> String { "application/x-\(service.rawValue)-result" }

    /// The path and query of `url` (`/repo.git/info/refs?service=…`), without scheme, host or
    /// credentials: what recordings keep of a request.
    public static func pathAndQuery(of url: String) -> String {
        let bytes = Array(url.utf8)
        guard let start = (0..<max(0, bytes.count - 2)).first(where: { bytes[$0..<($0 + 3)].elementsEqual("://".utf8) })
        else { return url }
        let rest = url.utf8.dropFirst(start + 3)
        guard let slash = rest.firstIndex(of: UInt8(ascii: "/")) else { return "/" }
        return String(Substring(rest[slash...]))
    }

    /// Whether a `Content-Type` value names `expected`, ignoring parameters (`; charset=…`),
    /// surrounding space and case.
    public static func contentType(_ value: String?, is expected: String) -> Bool {
        guard let value else { return false }
        let bare = value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return bare.trimmingSpaces().lowercased() == expected
    }

    /// The absolute URL a redirect's `Location` value names, resolved against the URL of the
    /// request it answered (RFC 3986, section 5.2: a URL, `//authority…`, `/path…`, `?query`, or a
    /// path relative to the request's; dot segments removed, the fragment and an empty query
    /// dropped, spaces escaped, the scheme in lowercase, as libcurl resolves it). `request` is the URL the request went to, without user
    /// information: the result has user information only if `location` itself wrote some. Nil for
    /// an empty value or one with control characters.
    public static func resolveRedirect(_ location: String, against request: String) -> String? {
        var reference = Array(location.utf8)
        while let first = reference.first, first == 0x20 || first == 0x09 { reference.removeFirst() }
        while let last = reference.last, last == 0x20 || last == 0x09 { reference.removeLast() }
        guard !reference.isEmpty, !reference.contains(where: { $0 < 0x20 || $0 == 0x7f }) else { return nil }
        reference = reference.flatMap { $0 == 0x20 ? Array("%20".utf8) : [$0] }
        if let hash = reference.firstIndex(of: UInt8(ascii: "#")) { reference.removeSubrange(hash...) }
        let base = Array(request.utf8)
        guard let schemeEnd = base.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let authorityStart = schemeEnd + 3
        let authorityEnd =
            base[min(authorityStart, base.count)...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") }
            ?? base.count
        let queryStart = base[authorityEnd...].firstIndex(of: UInt8(ascii: "?")) ?? base.count
        let basePath = Array(base[authorityEnd..<queryStart])
        // The scheme in lowercase and no empty query, as libcurl writes them.
        func text(_ bytes: [UInt8]) -> String {
            let colon = bytes.firstIndex(of: UInt8(ascii: ":")) ?? 0
            var written = bytes[..<colon].map { $0 | 0x20 } + bytes[colon...]
            if let question = written.firstIndex(of: UInt8(ascii: "?")), question == written.count - 1 {
                written.removeLast()
            }
            return String(decoding: written, as: UTF8.self)
        }
        // A scheme: letters, digits, `+`, `-`, `.`, starting with a letter, then `:`.
        if let colon = reference.firstIndex(of: UInt8(ascii: ":")), colon > 0,
            reference[0] | 0x20 >= UInt8(ascii: "a") && reference[0] | 0x20 <= UInt8(ascii: "z"),
            reference[..<colon].allSatisfy({ byte in
                (0x30...0x39).contains(byte) || (0x61...0x7a).contains(byte | 0x20) || "+-.".utf8.contains(byte)
            })
        {
            return text(withDotSegmentsRemoved(reference))
        }
        if reference.starts(with: "//".utf8) {
            return text(withDotSegmentsRemoved(Array(base[...schemeEnd]) + reference))
        }
        let origin = Array(base[..<authorityEnd])
        if reference.first == UInt8(ascii: "/") { return text(withDotSegmentsRemoved(origin + reference)) }
        if reference.first == UInt8(ascii: "?") { return text(origin + basePath + reference) }
        let directory = basePath.lastIndex(of: UInt8(ascii: "/")).map { Array(basePath[...$0]) } ?? [UInt8(ascii: "/")]
        return text(withDotSegmentsRemoved(origin + directory + reference))
    }

    /// `url` with `.` and `..` segments of its path resolved (RFC 3986, section 5.2.4).
    private static func withDotSegmentsRemoved(_ url: [UInt8]) -> [UInt8] {
        guard let separator = (0..<max(0, url.count - 2)).first(where: { url[$0..<($0 + 3)].elementsEqual("://".utf8) })
        else { return url }
        let authorityStart = separator + 3
        guard
            let pathStart = url[authorityStart...].firstIndex(where: {
                $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?")
            }),
            url[pathStart] == UInt8(ascii: "/")
        else { return url }
        let pathEnd = url[pathStart...].firstIndex(of: UInt8(ascii: "?")) ?? url.count
        var output: [[UInt8]] = []
        let segments = url[(pathStart + 1)..<pathEnd].split(
            separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        for (index, segment) in segments.enumerated() {
            let last = index == segments.count - 1
            if segment.elementsEqual(".".utf8) {
                if last { output.append([]) }
            } else if segment.elementsEqual("..".utf8) {
                if !output.isEmpty { output.removeLast() }
                if last { output.append([]) }
            } else {
                output.append(Array(segment))
            }
        }
        let path = [UInt8(ascii: "/")] + Array(output.joined(separator: [UInt8(ascii: "/")]))
        return Array(url[..<pathStart]) + path + Array(url[pathEnd...])
    }

    /// The repository URL after the discovery request was redirected to `effectiveURL`: the
    /// redirect's target without the `/info/refs?service=…` git asked for, as git derives it.
    /// Nil when the target does not end that way (git then refuses to follow it).
    public static func baseAfterRedirect(effectiveURL: String, service: Service) -> String? {
        let suffix = "/info/refs?service=\(service.rawValue)"
        guard effectiveURL.hasSuffix(suffix) else { return nil }
        return String(effectiveURL.dropLast(suffix.count))
    }
}

/// Strips what a smart HTTP server puts before the advertisement proper, as git's client does:
/// a `# service=<service>` packet and any further packets up to a flush. A v2 server may start
/// with `version 2` instead, which is kept. Takes the discovery response as it arrives and passes
/// on everything after the preamble.
public struct SmartHTTPPreamble {
    private let service: Service
    /// Splits the preamble into packets; each byte is looked at once, so a long preamble costs
    /// linear time.
    private var decoder = PktLineDecoder()
    /// Everything taken while the first packet is incomplete: handed on whole if that packet turns
    /// out to be `version 2`, which belongs to the advertisement.
    private var firstBytes: [UInt8] = []
    private var state = State.first

    private enum State {
        case first
        case skippingToFlush
        case passing
    }

    /// A filter for the discovery response of `service`.
    public init(service: Service) { self.service = service }

    /// Takes response bytes; returns those that follow the preamble (none while it is still
    /// being read).
    public mutating func take(_ bytes: [UInt8]) throws -> [UInt8] {
        if state == .passing { return bytes }
        if state == .first { firstBytes += bytes }
        decoder.append(bytes)
        while state != .passing {
            guard let packet = try decoder.next() else { return [] }
            switch state {
            case .first:
                guard case .data(let payload) = packet else {
                    throw ProtocolError("invalid server response; expected service, got flush packet")
                }
                var line = payload[...]
                if line.last == UInt8(ascii: "\n") { line = line.dropLast() }
                if line.elementsEqual("# service=\(service.rawValue)".utf8) {
                    firstBytes = []
                    state = .skippingToFlush
                } else if line.elementsEqual("version 2".utf8) {
                    state = .passing
                    defer { firstBytes = [] }
                    return firstBytes
                } else {
                    throw ProtocolError("invalid server response; got '\(escapedForDisplay(line))'")
                }
            case .skippingToFlush:
                if packet.payload == nil { state = .passing }
            case .passing:
                break
            }
        }
        return decoder.takeRawBytes()
    }

    /// Checks the response did not end inside the preamble.
    public func checkAtEnd() throws {
        if state != .passing {
            throw ProtocolError("invalid server response; the discovery response ended before its advertisement")
        }
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        var text = self
        while text.first == " " || text.first == "\t" { text = text.dropFirst() }
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return text
    }
}

extension SmartHTTP {
    /// Where a repository (or any request) is over HTTP: the URL to send requests to, with any
    /// user information the URL carried kept apart, so that no message, trace or recording shows
    /// it and it goes only to the origin it came with.
    public struct Location: Hashable, Sendable {
        /// `http://host[:port]/path`, without user information, query or fragment, and without a
        /// trailing slash: what requests for a repository are built on.
        public let base: String
        /// `http://host[:port]/path?query` as written, without user information and fragment:
        /// what a request for this URL itself is sent to.
        public let url: String
        /// Whether the URL is `https://`.
        public let isSecure: Bool
        /// The host as written, with its port if given: what credential helpers call `host`.
        public let hostAndPort: String
        /// The scheme, host and port: what a credential is bound to.
        public let origin: HTTPOrigin
        /// The path without its leading slash: what credential helpers call `path`.
        public let path: String
        /// The URL's user name, percent-decoded.
        public let username: String?
        /// The URL's password, percent-decoded.
        public let password: Secret?

        /// The URL's user name and password as a credential for its origin, if it has a user name.
        public var credential: HTTPCredential? {
            username.map { HTTPCredential(origin: origin, username: $0, password: password) }
        }

        /// Parses an `http://` or `https://` URL. Throws ``RemoteURLError`` (which shows the URL
        /// without its user information) for anything else, a missing host, a host with characters
        /// no URL host has, or a port that is not a number from 1 to 65535.
        public init(_ url: String) throws {
            // Byte by byte, as git's URL parsing: a separator joined to a combining scalar is still
            // a separator (a search by Character would miss an '@' and leave credentials in `base`).
            let bytes = url.utf8
            func hasScheme(_ scheme: String) -> Bool {
                bytes.count >= scheme.utf8.count
                    && zip(bytes, scheme.utf8).allSatisfy { ((0x41...0x5a).contains($0) ? $0 | 0x20 : $0) == $1 }
            }
            let schemeLength: Int
            if hasScheme("https://") {
                isSecure = true
                schemeLength = 8
            } else if hasScheme("http://") {
                isSecure = false
                schemeLength = 7
            } else {
                throw RemoteURLError(text: url, reason: "not an http:// or https:// URL")
            }
            let restStart = bytes.index(bytes.startIndex, offsetBy: schemeLength)
            let rest = url[restStart...]
            let authorityEnd =
                rest.utf8.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
                ?? rest.endIndex
            var authority = rest[..<authorityEnd]
            var target = rest[authorityEnd...]
            if let fragment = target.firstIndex(ofByte: "#") { target = target[..<fragment] }
            var pathPart = target
            if let query = pathPart.firstIndex(ofByte: "?") { pathPart = pathPart[..<query] }
            if let at = authority.lastIndex(ofByte: "@") {
                let userInfo = authority[..<at]
                if let colon = userInfo.firstIndex(ofByte: ":") {
                    username = Self.percentDecoded(userInfo[..<colon])
                    password = Secret(Self.percentDecoded(userInfo[userInfo.utf8.index(after: colon)...]))
                } else {
                    username = Self.percentDecoded(userInfo)
                    password = nil
                }
                authority = authority[authority.utf8.index(after: at)...]
            } else {
                username = nil
                password = nil
            }
            guard !authority.isEmpty else { throw RemoteURLError(text: url, reason: "no host in URL") }
            let (host, port) = try Self.hostAndPort(authority, url: url)
            while pathPart.utf8.last == UInt8(ascii: "/") {
                pathPart = pathPart[..<pathPart.utf8.index(before: pathPart.endIndex)]
            }
            hostAndPort = String(authority)
            origin = HTTPOrigin(isSecure: isSecure, host: String(host), port: port)
            let pathStart = pathPart.utf8.firstIndex { $0 != UInt8(ascii: "/") } ?? pathPart.endIndex
            path = String(pathPart[pathStart...])
            base = String(url[..<restStart]) + authority + pathPart
            self.url = String(url[..<restStart]) + authority + target
        }

        /// Splits `host[:port]` (`[v6]:port`) and checks both: a host of bytes libcurl takes in a
        /// host name (no space, control character, quote, backslash, `%` or other delimiter), a port of
        /// decimal digits from 1 to 65535 (none, or nothing after the colon: the default).
        private static func hostAndPort(_ authority: Substring, url: String) throws -> (Substring, Int?) {
            var host = authority
            var portText: Substring = ""
            if authority.hasBytePrefix("[") {
                guard let close = authority.firstIndex(ofByte: "]") else {
                    throw RemoteURLError(text: url, reason: "unterminated IPv6 address")
                }
                host = authority[...close]
                let after = authority[authority.utf8.index(after: close)...]
                if !after.isEmpty {
                    guard after.hasBytePrefix(":") else { throw RemoteURLError(text: url, reason: "invalid host") }
                    portText = after[after.utf8.index(after: after.startIndex)...]
                }
            } else if let colon = authority.lastIndex(ofByte: ":") {
                host = authority[..<colon]
                portText = authority[authority.utf8.index(after: colon)...]
            }
            // What libcurl refuses in a host name; in brackets, an IPv6 address (and zone).
            let bracketed = host.hasBytePrefix("[")
            let forbidden = Array((bracketed ? #" "<>\^`{|}[]"# : #" "<>\^`{|}[]!$'*=;,+&()%"#).utf8)
            let inside = bracketed ? host.utf8.dropFirst().dropLast() : host.utf8[...]
            guard !host.isEmpty, !inside.contains(where: { $0 < 0x21 || $0 == 0x7f || forbidden.contains($0) }) else {
                throw RemoteURLError(text: url, reason: "invalid host")
            }
            guard !portText.isEmpty else { return (host, nil) }
            guard portText.utf8.count <= 5, portText.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                let port = Int(portText), (1...65535).contains(port)
            else {
                throw RemoteURLError(text: url, reason: RemoteURL.invalidPortReason(portText, in: url))
            }
            return (host, port)
        }

        private static func percentDecoded(_ text: Substring) -> String {
            var bytes: [UInt8] = []
            var input = Array(text.utf8)[...]
            while let byte = input.popFirst() {
                if byte == UInt8(ascii: "%"), input.count >= 2, let high = hexDigitValue(input[input.startIndex]),
                    let low = hexDigitValue(input[input.startIndex + 1])
                {
                    bytes.append(high << 4 | low)
                    input = input.dropFirst(2)
                } else {
                    bytes.append(byte)
                }
            }
            return String(decoding: bytes, as: UTF8.self)
        }

        private static func hexDigitValue(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
    }
}
