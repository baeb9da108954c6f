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

    /// A transport to the repository at `url` (an `http://` or `https://` URL).
    public init(url: String, options: HTTPOptions = .fromEnvironment()) throws {
        self.location = try SmartHTTP.Location(url)
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
    private let request: ServiceRequest
    private let options: HTTPOptions
    private let timeout: Duration?
    private weak var loop: EpollRunLoop?
    private var handler: (any ConnectionHandler)?
    private var session: SmartHTTP.Session?
    /// Why there is no session (a repository URL no request can be built on).
    private var setupError: (any Error)?
    private let location: SmartHTTP.Location
    private var current: HTTPTransfer?
    /// The request `current` is: where it went, what it carried, its body (to send it again after a 401).
    private var sent: SentRequest?
    private var currentIsDiscovery = false
    private var discovered = false
    private var queued: [QueuedRequest] = []
    /// The probe (a `POST` of a flush packet) is under way: its answer is read and dropped, then
    /// the streamed request it was sent for goes.
    private var probing: QueuedRequest?
    private var isClosed = false
    /// The `git credential fill` under way for a 401, ended if the connection closes first.
    private var credentialCall: GitCredentialCall?
    private var preamble: SmartHTTPPreamble
    /// Where the discovery answer's advertisement ends (its first flush after the preamble).
    private var advertisementEnd = PktLineFlushFinder()
    private var passing = false
    private var failedHead: HTTPResponseHead?
    private var redirect: String?
    private var errorBody: [UInt8] = []
    /// The schemes a 401 from this origin named: credentials are offered with these from then on.
    private var authSchemes: (origin: HTTPOrigin, schemes: Int)?
    private static let errorBodyLimit = 4096

    private struct SentRequest {
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

    private var displayURL: String { session?.displayURL ?? location.base + "/" }

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
    private struct QueuedRequest {
        var body: [UInt8]
        var rest: (() throws -> [UInt8]?)?
    }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        handler = nil
        current?.cancel()
        current = nil
        queued = []
        probing = nil
        credentialCall?.cancel()
        credentialCall = nil
    }

    private var protocolHeader: [String] {
        request.protocolVersion == .v0 ? [] : ["Git-Protocol: version=\(request.protocolVersion.rawValue)"]
    }

    /// Sends `request` to its location, with the session's credential for that origin and no other.
    private func start(_ request: SentRequest, announced: Bool) {
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

    private func startDiscovery(_ target: SmartHTTP.Location, announced: Bool) {
        currentIsDiscovery = true
        start(
            SentRequest(
                method: .get, location: target, headers: ["Accept: */*", "Pragma: no-cache"] + protocolHeader, body: []),
            announced: announced)
    }

    private func startNextRequest() {
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
    private func startStreamedRequest(_ next: QueuedRequest) {
        guard let session, let rest = next.rest else { return }
        let headers = [
            "Content-Type: \(SmartHTTP.requestType(request.service))",
            "Accept: \(SmartHTTP.resultType(request.service))",
            "Expect:", "Transfer-Encoding: chunked",
        ]
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
    private func announce(_ method: String, url: String, headers: [String]) {
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

    private func resetResponse() {
        passing = false
        failedHead = nil
        redirect = nil
        errorBody = []
    }

    // MARK: HTTPTransferDelegate

    func transfer(_ transfer: HTTPTransfer, didReceive head: HTTPResponseHead) {
        guard transfer === current, let sent else { return }
        if head.authSchemesOffered != 0 && (head.status == 401 || sent.credential != nil) {
            authSchemes = (sent.location.origin, head.authSchemesOffered)
        }
        // A streamed body cannot be sent again: its redirect is an error like any other status.
        let follows =
            sent.source == nil
            && (options.followRedirects == .always || (options.followRedirects == .initial && currentIsDiscovery))
        if follows, [301, 302, 303, 307, 308].contains(head.status), let target = head.value(of: "Location") {
            // Followed once this answer's body is read (the connection stays reusable).
            redirect = target
            return
        }
        (handler as? any HTTPConnectionObserver)?.connection(
            self, didReceiveHTTPResponse: "\(head.status) \(head.value(of: "Content-Type") ?? "-")")
        guard head.status == 200 else {
            failedHead = head
            return
        }
        let contentType = head.value(of: "Content-Type")
        if currentIsDiscovery {
            guard SmartHTTP.contentType(contentType, is: SmartHTTP.advertisementType(request.service)) else {
                fail(HTTPError(.dumbServer, url: displayURL))
                return
            }
            do {
                if let moved = try session?.discoverySucceeded() { options.warning?("redirecting to \(moved)") }
            } catch let error as SmartHTTP.Session.BadRedirect {
                fail(HTTPError(.badRedirect(error.target), url: error.asked))
                return
            } catch {
                fail(error)
                return
            }
        } else if probing != nil {
            // The probe's answer is read and dropped (git looks at its status only).
            return
        } else if !SmartHTTP.contentType(contentType, is: SmartHTTP.resultType(request.service)) {
            fail(HTTPError(.unexpectedContentType(contentType), url: displayURL))
            return
        }
        passing = true
    }

    func transfer(_ transfer: HTTPTransfer, didReceive bytes: [UInt8]) {
        guard transfer === current else { return }
        if passing {
            do {
                guard currentIsDiscovery else {
                    handler?.connection(self, didReceive: bytes)
                    return
                }
                let passed = try preamble.take(bytes)
                let inside = advertisementEnd.count(in: passed)
                if inside > 0 {
                    handler?.connection(self, didReceive: inside == passed.count ? passed : Array(passed[..<inside]))
                }
                if inside < passed.count, transfer === current, !isClosed {
                    // The advertisement ended and the server goes on: what follows answers no
                    // request (git reads past it too, or takes it for the next answer). Nothing
                    // more is read; the session goes on as if the answer had ended there.
                    transfer.cancel()
                    self.transfer(transfer, didFinishWith: nil)
                }
            } catch {
                fail(error)
            }
        } else if errorBody.count < Self.errorBodyLimit {
            errorBody += bytes.prefix(Self.errorBodyLimit - errorBody.count)
        }
    }

    func transfer(_ transfer: HTTPTransfer, didFinishWith error: HTTPTransferError?) {
        guard transfer === current, !isClosed, let sent else { return }
        current = nil
        if let error {
            fail(HTTPError(.transfer(error), url: displayURL))
            return
        }
        if let failedHead {
            failed(failedHead, sent: sent)
            return
        }
        approveIfAccepted(sent)
        if redirect == nil, let next = probing {
            probing = nil
            startStreamedRequest(next)
            return
        }
        if let redirect, !currentIsDiscovery {
            followPostRedirect(sent, to: redirect)
            return
        }
        if let redirect {
            do {
                try session?.redirect(to: redirect)
            } catch {
                switch error {
                case .tooMany:
                    let limit = SmartHTTP.Session.maximumRedirects
                    let tooMany = HTTPTransferError(
                        reason: .transfer, code: 47, message: "Maximum (\(limit)) redirects followed")
                    fail(HTTPError(.transfer(tooMany), url: displayURL))
                case .unsupported(let target):
                    fail(HTTPError(.badRedirect(target), url: displayURL))
                }
                return
            }
            if let session { startDiscovery(session.discovery, announced: false) }
            return
        }
        if currentIsDiscovery {
            do {
                try preamble.checkAtEnd()
            } catch {
                fail(error)
                return
            }
            discovered = true
        }
        if queued.isEmpty {
            handler?.connectionDidEnd(self)
        } else {
            startNextRequest()
        }
    }

    /// A `POST` was redirected (``HTTPRedirects/always``): sent again, body and all, where the
    /// `Location` leads, with the credential of that origin if any; the repository stays.
    private func followPostRedirect(_ sent: SentRequest, to target: String) {
        var next = sent
        next.redirects += 1
        guard next.redirects <= SmartHTTP.Session.maximumRedirects else {
            let limit = SmartHTTP.Session.maximumRedirects
            let tooMany = HTTPTransferError(
                reason: .transfer, code: 47, message: "Maximum (\(limit)) redirects followed")
            fail(HTTPError(.transfer(tooMany), url: displayURL))
            return
        }
        guard let resolved = SmartHTTP.resolveRedirect(target, against: sent.location.url),
            let location = try? SmartHTTP.Location(resolved)
        else {
            fail(HTTPError(.badRedirect(target), url: displayURL))
            return
        }
        next.location = location
        start(next, announced: false)
    }

    /// A request that carried the helpers' credential was accepted: they are told so, once.
    private func approveIfAccepted(_ sent: SentRequest) {
        guard options.usesCredentialHelper,
            let accepted = session?.accepted(sent.credential, at: sent.location.origin)
        else { return }
        let reported = sent.location.helperQuery(accepted)
        guard let loop else { return }
        GitCredentialHelper.report(reported, approved: true, environment: options.credentialEnvironment, in: loop)
    }

    private func failed(_ head: HTTPResponseHead, sent: SentRequest) {
        let message = serverMessage(head)
        switch head.status {
        case 401 where sent.source != nil:
            // Refused although the probe was let through: the body cannot be sent twice.
            fail(HTTPError(.authenticationFailed, url: displayURL, serverMessage: message))
        case 401:
            guard var session else { return }
            let action = session.unauthorized(at: sent.location, helperAllowed: options.usesCredentialHelper)
            self.session = session
            switch action {
            case .askHelper(let location, let username):
                askForCredentials(for: location, username: username, retrying: sent)
            case .fail(let rejected):
                if let rejected, let loop {
                    GitCredentialHelper.report(
                        sent.location.helperQuery(rejected), approved: false,
                        environment: options.credentialEnvironment, in: loop)
                }
                fail(HTTPError(.authenticationFailed, url: displayURL, serverMessage: message))
            }
        case 404 where currentIsDiscovery:
            fail(HTTPError(.repositoryNotFound, url: displayURL, serverMessage: message))
        default:
            fail(HTTPError(.status(head.status), url: displayURL, serverMessage: message))
        }
    }

    /// The error body as git shows it: only `text/plain`, control characters masked (see
    /// `maskedForTerminal`), trailing white space dropped.
    private func serverMessage(_ head: HTTPResponseHead) -> String? {
        guard SmartHTTP.contentType(head.value(of: "Content-Type"), is: "text/plain"), !errorBody.isEmpty else {
            return nil
        }
        var text = String(decoding: maskedForTerminal(errorBody), as: UTF8.self)
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return text.isEmpty ? nil : text
    }

    /// Asks the credential helpers about `location`'s origin, then sends `retrying` again.
    private func askForCredentials(for location: SmartHTTP.Location, username: String?, retrying: SentRequest) {
        guard let loop else { return }
        let wanted = location.helperQuery(username: username)
        credentialCall = GitCredentialHelper.fill(wanted, environment: options.credentialEnvironment, in: loop) {
            [weak self] result in
            guard let self, !self.isClosed else { return }
            self.credentialCall = nil
            switch result {
            case .success(let filled):
                self.session?.helperAnswered(username: filled.username, password: filled.password, for: location)
                self.start(retrying, announced: true)
            case .failure(let error):
                self.fail(error)
            }
        }
    }

    private func fail(_ error: any Error) {
        current?.cancel()
        current = nil
        queued = []
        probing = nil
        credentialCall?.cancel()
        credentialCall = nil
        let handler = self.handler
        self.handler = nil
        handler?.connection(self, didFail: error)
    }

    private func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
        try Deflater(gzipLevel: -1).deflateWhole(bytes[...])
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
