/// Smart HTTP and HTTPS (`man gitprotocol-http`): a `GET` of `info/refs` for the advertisement,
/// then one `POST` per request of the exchange (stateless RPC). Runs on the run loop through
/// libcurl's multi-socket interface: no thread per request, connections reused between the
/// requests of a session, any number of sessions on one loop.
public struct HTTPTransport: Transport {
    /// The repository's location (credentials, if the URL had any, kept apart).
    public let location: SmartHTTP.Location
    /// How requests are made.
    public var options: HTTPOptions

    /// ``RemoteURL/Scheme/http`` or ``RemoteURL/Scheme/https``.
    public var scheme: RemoteURL.Scheme { location.isSecure ? .https : .http }

    /// Always false: each request is a new HTTP request; the server keeps no state between them.
    public var connectionPersists: Bool { false }

    /// A transport to the repository at `url` (an `http://` or `https://` URL). A URL whose
    /// user name, password or path holds a newline is refused, as git refuses it
    /// (``CredentialURLNewlineError``).
    public init(url: String, options: HTTPOptions = .fromEnvironment()) throws {
        self.location = try SmartHTTP.Location(url)
        try location.checkCredentialFields(of: url)
        self.options = options
    }

    /// Starts the session: the discovery `GET` is sent when the engine starts the connection.
    public func connect(_ request: ServiceRequest, timeout: Duration?, in loop: EpollRunLoop) throws -> any Connection {
        HTTPConnection(location: location, request: request, options: options, timeout: timeout, loop: loop)
    }
}

/// One smart HTTP session as a ``Connection``: the discovery response, then each request the
/// exchange sends becomes a `POST` whose response is passed on. The connection "ends" when a
/// response is complete and the exchange has not sent another request.
///
/// Which URL each request goes to and which credential goes with it is ``SmartHTTP/Session``'s
/// to say: redirects of the discovery request are followed here, one request per hop (libcurl
/// follows none), and a credential goes only to the origin it was given for. After a 401 the
/// credential is offered with the schemes the server named, so libcurl sends a Basic one with
/// the first request from then on (git narrows libcurl the same way), and a `POST` answered 401
/// is sent again once the credential helpers have answered.
final class HTTPConnection: Connection, StreamedRequestConnection, HTTPTransferDelegate {
    let greeting: [PktLine] = []
    let request: ServiceRequest
    let options: HTTPOptions
    let timeout: Duration?
    weak var loop: EpollRunLoop?
    var handler: (any ConnectionHandler)?
    var session: SmartHTTP.Session?
    /// Why there is no session (a repository URL no request can be built on).
    var setupError: (any Error)?
    let location: SmartHTTP.Location
    var current: HTTPTransfer?
    /// The request `current` is: where it went, what it carried, its body (to send it again after a 401).
    var sent: SentRequest?
    var currentIsDiscovery = false
    var discovered = false
    var queued: [QueuedRequest] = []
    /// The probe (a `POST` of a flush packet) is under way: its answer is read and dropped, then
    /// the streamed request it was sent for goes.
    var probing: QueuedRequest?
    var isClosed = false
    /// The `git credential fill` under way for a 401, ended if the connection closes first.
    var credentialCall: GitCredentialCall?
    var preamble: SmartHTTPPreamble
    /// Where the discovery answer's advertisement ends (its first flush after the preamble).
    var advertisementEnd = PktLineFlushFinder()
    var passing = false
    var failedHead: HTTPResponseHead?
    var redirect: String?
    var errorBody: [UInt8] = []
    /// The schemes a 401 from this origin named: credentials are offered with these from then on.
    var authSchemes: (origin: HTTPOrigin, schemes: Int)?
    static let errorBodyLimit = 4096

    struct SentRequest {
        var method: HTTPRequest.Method
        var location: SmartHTTP.Location
        var headers: [String]
        var body: [UInt8]
        /// The rest of a body streamed after ``body`` (chunked): sent once, never again.
        var source: (() throws -> [UInt8]?)?
        var credential: HTTPCredential?
        /// Redirects of this request followed so far (`POST`s, with ``HTTPRedirects/always``).
        var redirects = 0
    }

    init(
        location: SmartHTTP.Location, request: ServiceRequest, options: HTTPOptions, timeout: Duration?,
        loop: EpollRunLoop
    ) {
        self.location = location
        self.request = request
        self.options = options
        self.timeout = timeout
        self.loop = loop
        do {
            session = try SmartHTTP.Session(location, service: request.service)
        } catch {
            setupError = error
        }
        self.preamble = SmartHTTPPreamble(service: request.service)
    }

    var displayURL: String { session?.displayURL ?? location.base + "/" }

    func start(handler: any ConnectionHandler) {
        guard !isClosed else { return }
        self.handler = handler
        // The engine's deadline starts now: it covers the connect and TLS handshake too.
        handler.connectionDidOpen(self)
        for warning in options.configurationWarnings { options.warning?(warning) }
        guard let session else {
            fail(setupError ?? ProtocolError("no smart HTTP session for \(displayURL)"))
            return
        }
        startDiscovery(session.discovery, announced: true)
    }

    func send(_ bytes: [UInt8]) {
        guard !isClosed, !bytes.isEmpty else { return }
        queued.append(QueuedRequest(body: bytes, rest: nil))
        if current == nil && discovered { startNextRequest() }
    }

    package var postBuffer: Int { options.postBuffer }

    package func sendStreamed(_ prefix: [UInt8], then rest: @escaping () throws -> [UInt8]?) {
        guard !isClosed else { return }
        queued.append(QueuedRequest(body: prefix, rest: rest))
        if current == nil && discovered { startNextRequest() }
    }

    /// A request the exchange sent: its body, whole or begun (then `rest` makes the remainder).
    struct QueuedRequest {
        var body: [UInt8]
        var rest: (() throws -> [UInt8]?)?
    }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        handler = nil
        cancelRequests()
    }

    /// Cancels the transfer under way and the credential call, and drops the requests waiting.
    func cancelRequests() {
        current?.cancel()
        current = nil
        queued = []
        probing = nil
        credentialCall?.cancel()
        credentialCall = nil
    }

    var protocolHeader: [String] {
        request.protocolVersion == .v0 ? [] : ["Git-Protocol: version=\(request.protocolVersion.rawValue)"]
    }

    /// Sends `request` to its location, with the session's credential for that origin and no other.
    func start(_ request: SentRequest, announced: Bool) {
        guard let loop, let session else { return }
        var request = request
        request.credential = session.credential(for: request.location.origin)
        if announced { announce(request.method.rawValue, url: request.location.url, headers: request.headers) }
        resetResponse()
        sent = request
        let schemes = authSchemes.flatMap { $0.origin == request.location.origin ? $0.schemes : nil }
        var transfer = HTTPRequest(
            method: request.method, url: request.location.url, headers: request.headers, body: request.body,
            credential: request.credential, authSchemes: schemes, userAgent: options.userAgent,
            connectTimeout: timeout, tls: options.tls)
        if let source = request.source {
            // The part already made goes first, then the rest as the source makes it.
            var prefix = Optional(request.body)
            transfer.bodySource = HTTPBodySource {
                if let first = prefix {
                    prefix = nil
                    if !first.isEmpty { return first }
                }
                return try source()
            }
            transfer.body = []
        }
        // The extra headers were configured for the repository's URL: like a credential, they go
        // to its origin only, never where a redirect leads elsewhere.
        if request.location.origin == location.origin { transfer.secretHeaders = options.extraHeaders }
        transfer.proxy = options.proxy
        transfer.httpVersion = options.httpVersion
        transfer.lowSpeed = options.lowSpeed
        current = HTTPTransfer(transfer, delegate: self, in: loop)
    }

    func startDiscovery(_ target: SmartHTTP.Location, announced: Bool) {
        currentIsDiscovery = true
        start(
            SentRequest(
                method: .get, location: target, headers: ["Accept: */*", "Pragma: no-cache"] + protocolHeader, body: []),
            announced: announced)
    }

    func startNextRequest() {
        guard !queued.isEmpty, let session else { return }
        let next = queued.removeFirst()
        currentIsDiscovery = false
        let types = [
            "Content-Type: \(SmartHTTP.requestType(request.service))",
            "Accept: \(SmartHTTP.resultType(request.service))",
        ]
        if next.rest != nil {
            // git's probe_rpc: a small request first, so that authentication is settled before
            // a body that cannot be sent twice goes out.
            probing = next
            do {
                start(
                    SentRequest(
                        method: .post, location: try session.serviceLocation, headers: types + protocolHeader,
                        body: SmartHTTP.probeBody),
                    announced: true)
            } catch {
                fail(error)
            }
            return
        }
        var headers = types + ["Expect:"]
        var payload = next.body
        // Only a fetch's requests are compressed (git's gzip_request); a push's go as they are.
        if request.service == .uploadPack, next.body.count > options.gzipThreshold,
            let compressed = try? gzip(next.body)
        {
            headers.append("Content-Encoding: gzip")
            payload = compressed
        }
        if let announce = options.postAnnouncement {
            let compressed = headers.contains("Content-Encoding: gzip")
            announce(
                compressed
                    ? "POST \(request.service.rawValue) (gzip \(next.body.count) to \(payload.count) bytes)"
                    : "POST \(request.service.rawValue) (\(payload.count) bytes)")
        }
        do {
            start(
                SentRequest(
                    method: .post, location: try session.serviceLocation, headers: headers + protocolHeader,
                    body: payload),
                announced: true)
        } catch {
            fail(error)
        }
    }

    /// The probe was answered 200: the streamed request goes now, with the credential it settled.
    func startStreamedRequest(_ next: QueuedRequest) {
        guard let session, let rest = next.rest else { return }
        let headers = [
            "Content-Type: \(SmartHTTP.requestType(request.service))",
            "Accept: \(SmartHTTP.resultType(request.service))",
            "Expect:", "Transfer-Encoding: chunked",
        ]
        options.postAnnouncement?("POST \(request.service.rawValue) (chunked)")
        do {
            start(
                SentRequest(
                    method: .post, location: try session.serviceLocation, headers: headers + protocolHeader,
                    body: next.body, source: rest),
                announced: true)
        } catch {
            fail(error)
        }
    }

    /// Tells an observing handler what is about to be sent: the path and the git headers.
    func announce(_ method: String, url: String, headers: [String]) {
        guard let observer = handler as? any HTTPConnectionObserver else { return }
        let path = SmartHTTP.pathAndQuery(of: url)
        let notable = headers.compactMap { header -> String? in
            let lowered = header.lowercased()
            guard
                lowered.hasPrefix("git-protocol:") || lowered.hasPrefix("content-encoding:")
                    || lowered.hasPrefix("transfer-encoding:")
            else { return nil }
            return lowered.replacingFirstColonSpace()
        }
        observer.connection(self, willSendHTTPRequest: ([method, path] + notable).joined(separator: " "))
    }

    func resetResponse() {
        passing = false
        failedHead = nil
        redirect = nil
        errorBody = []
    }
}

extension SmartHTTP.Location {
    /// What credential helpers are asked about this location's origin (git sends no path unless
    /// `credential.useHttpPath` asks for it; `git credential` drops it then).
    func helperQuery(username: String?) -> GitCredential {
        GitCredential(
            protocolName: isSecure ? "https" : "http", host: hostAndPort, path: repositoryPath, username: username,
            password: nil)
    }

    /// The path credential helpers are told, as git tells them: the repository's, not the
    /// request's (no `/info/refs`, `/git-upload-pack` or `/git-receive-pack` after it), so that
    /// with `credential.useHttpPath` a credential git stored is found, and one stored here is
    /// found by git. Percent-decoded as git decodes it, except where a byte would be a control
    /// character (git refuses those paths; here they stay encoded and never reach a helper
    /// raw) or the result is not UTF-8 (then the path stays as written).
    var repositoryPath: String {
        var repository = Substring(path)
        for suffix in ["/info/refs", "/git-upload-pack", "/git-receive-pack"] where repository.hasSuffix(suffix) {
            repository = repository.dropLast(suffix.count)
            break
        }
        var bytes: [UInt8] = []
        var input = Array(repository.utf8)[...]
        while let byte = input.popFirst() {
            if byte == UInt8(ascii: "%"), input.count >= 2, input.prefix(2).allSatisfy(isHexDigit),
                let value = UInt8(String(decoding: input.prefix(2), as: UTF8.self), radix: 16), value >= 0x20,
                value != 0x7f
            {
                bytes.append(value)
                input = input.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self) ?? String(repository)
    }

    private func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
            UInt8(ascii: "A")...UInt8(ascii: "F"):
            true
        default: false
        }
    }

    /// `credential` as told to the helpers (`approve`, `reject`), for this location's origin.
    func helperQuery(_ credential: HTTPCredential) -> GitCredential {
        var query = helperQuery(username: credential.username)
        query.password = credential.password
        return query
    }
}

extension String {
    /// `name: value` as `name=value`.
    fileprivate func replacingFirstColonSpace() -> String {
        guard let colon = firstIndex(of: ":") else { return self }
        return self[..<colon] + "=" + self[index(after: colon)...].drop { $0 == " " }
    }
}

/// A connection that can send one request whose body is made while it goes (smart HTTP's
/// chunked `POST`), for a push's pack. Recording and replaying connections (`GitWireReplay`)
/// pass it on, so that a recorded push makes the requests a live one makes.
package protocol StreamedRequestConnection: Connection {
    /// `http.postBuffer`: bodies that fit (less one packet's room) go whole through ``send(_:)``.
    var postBuffer: Int { get }
    /// Sends one request: `prefix`, then what `rest` makes, with `Transfer-Encoding: chunked`,
    /// after a probe request (git's: a `POST` of a lone flush packet, ``SmartHTTP/probeBody``) has settled
    /// authentication.
    func sendStreamed(_ prefix: [UInt8], then rest: @escaping () throws -> [UInt8]?)
}

extension SmartHTTP {
    /// The body of git's probe request (`probe_rpc`): a flush packet.
    package static let probeBody: [UInt8] = Array("0000".utf8)
}
