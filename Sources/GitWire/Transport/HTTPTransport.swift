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

/// How the HTTP transport makes its requests. ``fromEnvironment()`` reads git's variables.
public struct HTTPOptions: Sendable {
    /// The `User-Agent` header (`GIT_HTTP_USER_AGENT` when set).
    public var userAgent: String
    /// How servers are verified (`GIT_SSL_CAINFO`, `GIT_SSL_CAPATH`, `GIT_SSL_NO_VERIFY`).
    public var tls: HTTPTLSOptions
    /// Whether `git credential fill` is asked for credentials on a 401, and told afterwards
    /// whether they worked. The URL's own `user:password` are used first either way.
    public var usesCredentialHelper: Bool
    /// Bodies larger than this are sent gzip-compressed (`Content-Encoding: gzip`), as git does.
    public var gzipThreshold: Int
    /// Hears warnings git prints on stderr (`redirecting to <url>`); called on the loop's thread.
    public var warning: (@Sendable (String) -> Void)?

    /// The default `User-Agent`: `git/2.0 (gitwire/<version>)`, so servers that look for git's
    /// agent to speak smart HTTP recognise it.
    public static let defaultUserAgent = "git/2.0 (\(GitWireInfo.agent))"

    /// Makes options.
    public init(
        userAgent: String = HTTPOptions.defaultUserAgent, tls: HTTPTLSOptions = HTTPTLSOptions(),
        usesCredentialHelper: Bool = true, gzipThreshold: Int = 1024, warning: (@Sendable (String) -> Void)? = nil
    ) {
        self.userAgent = userAgent
        self.tls = tls
        self.usesCredentialHelper = usesCredentialHelper
        self.gzipThreshold = gzipThreshold
        self.warning = warning
    }

    /// Options from git's environment variables: `GIT_HTTP_USER_AGENT`, `GIT_SSL_CAINFO`,
    /// `GIT_SSL_CAPATH`, `GIT_SSL_NO_VERIFY` (any value turns verification off, as in git).
    /// Proxies come from `http_proxy`, `https_proxy`, `all_proxy` and `no_proxy`, which libcurl reads.
    public static func fromEnvironment() -> HTTPOptions {
        var options = HTTPOptions()
        if let agent = Environment.value("GIT_HTTP_USER_AGENT"), !agent.isEmpty { options.userAgent = agent }
        options.tls.caInfo = Environment.value("GIT_SSL_CAINFO").flatMap { $0.isEmpty ? nil : $0 }
        options.tls.caPath = Environment.value("GIT_SSL_CAPATH").flatMap { $0.isEmpty ? nil : $0 }
        if Environment.value("GIT_SSL_NO_VERIFY") != nil { options.tls.verify = false }
        return options
    }
}

/// One smart HTTP session as a ``Connection``: the discovery response, then each request the
/// exchange sends becomes a `POST` whose response is passed on. The connection "ends" when a
/// response is complete and the exchange has not sent another request.
final class HTTPConnection: Connection, HTTPTransferDelegate {
    let greeting: [PktLine] = []
    private let location: SmartHTTP.Location
    private let request: ServiceRequest
    private let options: HTTPOptions
    private let timeout: Duration?
    private weak var loop: EpollRunLoop?
    private var handler: (any ConnectionHandler)?
    private var base: String
    private var current: HTTPTransfer?
    private var currentIsDiscovery = false
    private var discovered = false
    private var queued: [[UInt8]] = []
    private var isClosed = false
    private var preamble: SmartHTTPPreamble
    /// Where the discovery answer's advertisement ends (its first flush after the preamble).
    private var advertisementEnd = PktLineFlushFinder()
    private var passing = false
    private var failedHead: HTTPResponseHead?
    private var errorBody: [UInt8] = []
    private var credential: GitCredential?
    private var credentialFromHelper = false
    private static let errorBodyLimit = 4096

    init(
        location: SmartHTTP.Location, request: ServiceRequest, options: HTTPOptions, timeout: Duration?,
        loop: EpollRunLoop
    ) {
        self.location = location
        self.request = request
        self.options = options
        self.timeout = timeout
        self.loop = loop
        self.base = location.base
        self.preamble = SmartHTTPPreamble(service: request.service)
        if let username = location.username {
            credential = location.credential(username: username, password: location.password)
        }
    }

    private var displayURL: String { base + "/" }

    func start(handler: any ConnectionHandler) {
        guard !isClosed else { return }
        self.handler = handler
        // The engine's deadline starts now: it covers the connect and TLS handshake too.
        handler.connectionDidOpen(self)
        startDiscovery()
    }

    func send(_ bytes: [UInt8]) {
        guard !isClosed, !bytes.isEmpty else { return }
        queued.append(bytes)
        if current == nil && discovered { startNextRequest() }
    }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        handler = nil
        current?.cancel()
        current = nil
        queued = []
    }

    private var protocolHeader: [String] {
        request.protocolVersion == .v0 ? [] : ["Git-Protocol: version=\(request.protocolVersion.rawValue)"]
    }

    private func makeRequest(_ method: HTTPRequest.Method, url: String, headers: [String], body: [UInt8] = [])
        -> HTTPRequest
    {
        HTTPRequest(
            method: method, url: url, headers: headers, body: body, followRedirects: method == .get,
            username: credential?.username, password: credential?.password, userAgent: options.userAgent,
            connectTimeout: timeout, tls: options.tls)
    }

    private func startDiscovery() {
        guard let loop else { return }
        currentIsDiscovery = true
        resetResponse()
        let url = SmartHTTP.discoveryURL(base: base, service: request.service)
        announce("GET", url: url, headers: protocolHeader)
        current = HTTPTransfer(
            makeRequest(.get, url: url, headers: ["Accept: */*", "Pragma: no-cache"] + protocolHeader),
            delegate: self, in: loop)
    }

    private func startNextRequest() {
        guard let loop, !queued.isEmpty else { return }
        let body = queued.removeFirst()
        currentIsDiscovery = false
        resetResponse()
        var headers = [
            "Content-Type: \(SmartHTTP.requestType(request.service))",
            "Accept: \(SmartHTTP.resultType(request.service))",
            "Expect:",
        ]
        var sent = body
        if body.count > options.gzipThreshold, let compressed = try? gzip(body) {
            headers.append("Content-Encoding: gzip")
            sent = compressed
        }
        announce(
            "POST", url: SmartHTTP.serviceURL(base: base, service: request.service), headers: headers + protocolHeader)
        current = HTTPTransfer(
            makeRequest(
                .post, url: SmartHTTP.serviceURL(base: base, service: request.service),
                headers: headers + protocolHeader, body: sent),
            delegate: self, in: loop)
    }

    /// Tells an observing handler what is about to be sent: the path and the git headers.
    private func announce(_ method: String, url: String, headers: [String]) {
        guard let observer = handler as? any HTTPConnectionObserver else { return }
        let path = SmartHTTP.pathAndQuery(of: url)
        let notable = headers.compactMap { header -> String? in
            let lowered = header.lowercased()
            guard lowered.hasPrefix("git-protocol:") || lowered.hasPrefix("content-encoding:") else { return nil }
            return lowered.replacingFirstColonSpace()
        }
        observer.connection(self, willSendHTTPRequest: ([method, path] + notable).joined(separator: " "))
    }

    private func resetResponse() {
        passing = false
        failedHead = nil
        errorBody = []
    }

    // MARK: HTTPTransferDelegate

    func transfer(_ transfer: HTTPTransfer, didReceive head: HTTPResponseHead) {
        guard transfer === current else { return }
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
            let asked = SmartHTTP.discoveryURL(base: base, service: request.service)
            if head.effectiveURL != asked {
                guard
                    let newBase = SmartHTTP.baseAfterRedirect(effectiveURL: head.effectiveURL, service: request.service)
                else {
                    fail(HTTPError(.badRedirect(head.effectiveURL), url: asked))
                    return
                }
                base = newBase
                options.warning?("redirecting to \(displayURL)")
            }
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
        guard transfer === current, !isClosed else { return }
        current = nil
        if let error {
            fail(HTTPError(.transfer(error), url: displayURL))
            return
        }
        if let failedHead {
            failed(failedHead)
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
            if credentialFromHelper, let credential, options.usesCredentialHelper {
                runOffLoopIfPossible { GitCredentialHelper.report(credential, approved: true) }
            }
        }
        if queued.isEmpty {
            handler?.connectionDidEnd(self)
        } else {
            startNextRequest()
        }
    }

    private func failed(_ head: HTTPResponseHead) {
        let message = serverMessage(head)
        switch head.status {
        case 401 where currentIsDiscovery && credential?.password == nil && options.usesCredentialHelper:
            askForCredentials()
        case 401:
            if credentialFromHelper, let credential {
                runOffLoopIfPossible { GitCredentialHelper.report(credential, approved: false) }
            }
            fail(HTTPError(.authenticationFailed, url: displayURL, serverMessage: message))
        case 404 where currentIsDiscovery:
            fail(HTTPError(.repositoryNotFound, url: displayURL, serverMessage: message))
        default:
            fail(HTTPError(.status(head.status), url: displayURL, serverMessage: message))
        }
    }

    /// The error body as git shows it: only `text/plain`, control characters replaced, trailing
    /// white space dropped.
    private func serverMessage(_ head: HTTPResponseHead) -> String? {
        guard SmartHTTP.contentType(head.value(of: "Content-Type"), is: "text/plain"), !errorBody.isEmpty else {
            return nil
        }
        var text = displayedServerText(errorBody)
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return text.isEmpty ? nil : text
    }

    private func askForCredentials() {
        guard let loop else { return }
        let wanted = credential ?? location.credential(username: nil, password: nil)
        let fill = { try GitCredentialHelper.fill(wanted) }
        runOffLoop(in: loop, fill) { [weak self] result in
            guard let self, !self.isClosed else { return }
            switch result {
            case .success(let filled):
                self.credential = filled
                self.credentialFromHelper = true
                self.startDiscovery()
            case .failure(let error):
                self.fail(error)
            }
        }
    }

    private func runOffLoopIfPossible(_ work: @escaping @Sendable () -> Void) {
        guard let loop else { return }
        runOffLoop(in: loop, work) { _ in }
    }

    private func fail(_ error: any Error) {
        current?.cancel()
        current = nil
        queued = []
        let handler = self.handler
        self.handler = nil
        handler?.connection(self, didFail: error)
    }

    private func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
        try Deflater(gzipLevel: -1).deflateWhole(bytes[...])
    }
}

extension SmartHTTP.Location {
    /// What credential helpers are asked about for this location.
    func credential(username: String?, password: String?) -> GitCredential {
        GitCredential(
            protocolName: isSecure ? "https" : "http", host: hostAndPort, path: path, username: username,
            password: password)
    }
}

/// Server text (an error page) as git shows it: printable characters, tabs and line breaks
/// kept, any other control character shown as `?`, so a server cannot drive the terminal.
func displayedServerText(_ bytes: [UInt8]) -> String {
    let kept = bytes.map { byte -> UInt8 in
        byte == 0x0a || byte == 0x09 || byte >= 0x20 && byte != 0x7f ? byte : UInt8(ascii: "?")
    }
    return String(decoding: kept, as: UTF8.self)
}

extension String {
    /// `name: value` as `name=value`.
    fileprivate func replacingFirstColonSpace() -> String {
        guard let colon = firstIndex(of: ":") else { return self }
        return self[..<colon] + "=" + self[index(after: colon)...].drop { $0 == " " }
    }
}
