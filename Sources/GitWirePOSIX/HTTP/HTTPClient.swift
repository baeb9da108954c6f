import CGitWire
import GitWireCore

/// One HTTP request: what the client sends, and how. Redirects are never followed here (the
/// caller decides about each, from the `Location` header), and user information in `url`
/// is never used: a credential goes only as ``credential``, and only when the request's origin is
/// the credential's.
package struct HTTPRequest: Sendable {
    /// `GET` or `POST`.
    package enum Method: String, Sendable {
        case get = "GET"
        case post = "POST"
    }

    package var method: Method
    package var url: String
    /// Extra header lines, `Name: value`; `Name:` removes a header libcurl would add.
    package var headers: [String]
    /// The body of a `POST`, sent with `Content-Length` (unless ``bodySource`` is set).
    package var body: [UInt8]
    /// A body produced while it is sent, instead of ``body``: pulled piece by piece as libcurl
    /// takes it (the caller adds `Transfer-Encoding: chunked`); never held whole.
    package var bodySource: HTTPBodySource?
    /// The user name and password to offer, bound to the origin they were given for.
    package var credential: HTTPCredential?
    /// Which authentication schemes to offer the credential with (libcurl's `CURLAUTH_*` bits);
    /// nil: any the server names, found out by a first request without them. Narrowed to what
    /// a 401 named, libcurl sends a Basic credential with the first request.
    package var authSchemes: Int?
    package var userAgent: String
    package var connectTimeout: Duration?
    package var tls: HTTPTLSOptions
    /// Header lines that are secrets (`http.extraHeader`): sent after ``headers``, never shown.
    package var secretHeaders: [Secret] = []
    /// The proxy; nil: libcurl's environment variables (`http_proxy`, `https_proxy`, ...).
    package var proxy: HTTPProxy?
    /// The HTTP version to ask for; nil: libcurl's default.
    package var httpVersion: HTTPVersion?
    /// Abandon a transfer that stays this slow this long.
    package var lowSpeed: HTTPLowSpeedLimit?

    package init(
        method: Method, url: String, headers: [String] = [], body: [UInt8] = [], credential: HTTPCredential? = nil,
        authSchemes: Int? = nil, userAgent: String, connectTimeout: Duration? = nil,
        tls: HTTPTLSOptions = HTTPTLSOptions()
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.credential = credential
        self.authSchemes = authSchemes
        self.userAgent = userAgent
        self.connectTimeout = connectTimeout
        self.tls = tls
    }
}

/// How HTTPS servers are verified: git's `GIT_SSL_CAINFO`, `GIT_SSL_CAPATH`, `GIT_SSL_NO_VERIFY`.
public struct HTTPTLSOptions: Hashable, Sendable {
    /// A file of trusted certificate authorities (PEM), instead of the system's.
    public var caInfo: String?
    /// A directory of trusted certificate authorities (hashed names), instead of the system's.
    public var caPath: String?
    /// Whether the server's certificate and name are checked. On by default.
    public var verify: Bool

    /// Makes options; by default the system's authorities are trusted and servers are verified.
    public init(caInfo: String? = nil, caPath: String? = nil, verify: Bool = true) {
        self.caInfo = caInfo
        self.caPath = caPath
        self.verify = verify
    }
}

/// What the server answered, before the body: the status, the headers and which authentication
/// schemes a 401 named.
package struct HTTPResponseHead: Sendable {
    package var status: Int
    /// Header lines of the last response (after libcurl's own authentication round), names as sent.
    package var headers: [(name: String, value: String)]
    /// The authentication schemes the server named in a 401 during this request (`CURLAUTH_*`
    /// bits; 0 when none).
    package var authSchemesOffered: Int

    /// The value of header `name` (case-insensitive), if present.
    package func value(of name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }
}

/// Hears how an ``HTTPTransfer`` goes; every call happens on the run loop's thread, outside
/// libcurl's callbacks, so a delegate may start or cancel transfers from any of them.
package protocol HTTPTransferDelegate: AnyObject {
    /// The response's status and headers arrived (called once, before any body bytes).
    func transfer(_ transfer: HTTPTransfer, didReceive head: HTTPResponseHead)
    /// Body bytes arrived, decoded if the server compressed them.
    func transfer(_ transfer: HTTPTransfer, didReceive bytes: [UInt8])
    /// The transfer ended: nil when the whole body arrived.
    func transfer(_ transfer: HTTPTransfer, didFinishWith error: HTTPTransferError?)
}

/// One request and its response, run by libcurl on an ``EpollRunLoop``: many transfers share the
/// loop's thread (libcurl's multi-socket interface, driven by the loop's epoll and timers) and
/// reuse its connections.
///
/// The body reaches the delegate in pieces of at most about ``deliveryLimit`` bytes, however much
/// libcurl reads or decodes at once: once that much waits for the delegate, libcurl is paused
/// (its write callback answers `CURL_WRITEFUNC_PAUSE`) and reads no more from the server until
/// the delegate has taken it, so a compressed answer that expands a thousandfold is never held
/// whole. What libcurl itself holds meanwhile is bounded by what it decodes from one read of the
/// socket (16 KiB, at most about 16.5 MiB decoded). A delegate that cannot keep up can
/// ``suspend()`` deliveries and ``resume()`` them later.
package final class HTTPTransfer {
    /// The most body bytes held for the delegate at once (plus one write of libcurl's, at most
    /// 16 KiB); beyond it libcurl is paused until the delegate has taken them.
    package static let deliveryLimit = 1 << 20

    package let request: HTTPRequest
    private weak var delegate: (any HTTPTransferDelegate)?
    var easy: UnsafeMutableRawPointer?
    private var headerList: UnsafeMutableRawPointer?
    private var bodyCopy: UnsafeMutableRawBufferPointer?
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CGW_CURL_ERROR_SIZE) + 1)
    fileprivate var pending: [UInt8] = []
    /// Whether libcurl was told to stop reading (the write callback answered pause).
    fileprivate var isReceivePaused = false
    /// Whether the delegate asked for no more body bytes for now.
    fileprivate private(set) var isSuspended = false
    private var isDelivering = false
    /// libcurl's result, once it finished, while body bytes still wait for a suspended delegate.
    private var completedCode: CInt?
    fileprivate var headLines: [(name: String, value: String)] = []
    fileprivate var headDelivered = false
    fileprivate var isDirty = false
    private(set) package var isFinished = false
    private weak var driver: CurlMultiDriver?

    /// Starts `request` on `loop`; `delegate` hears the answer.
    package init(_ request: HTTPRequest, delegate: any HTTPTransferDelegate, in loop: EpollRunLoop) {
        self.request = request
        self.delegate = delegate
        errorBuffer.initialize(repeating: 0, count: Int(CGW_CURL_ERROR_SIZE) + 1)
        let driver: CurlMultiDriver
        do {
            driver = try CurlMultiDriver.driver(for: loop)
            try configure()
        } catch {
            let failure =
                error as? HTTPTransferError ?? HTTPTransferError(reason: .unavailable, code: 0, message: "\(error)")
            loop.addTimer(after: .zero) { [weak self] _ in self?.finish(failure) }
            return
        }
        self.driver = driver
        driver.add(self)
    }

    deinit {
        if let easy { cgw_curl_easy_cleanup(easy) }
        if let headerList { cgw_curl_slist_free_all(headerList) }
        bodyCopy?.deallocate()
        errorBuffer.deallocate()
    }

    /// Delivers no more body bytes until ``resume()``: libcurl stops reading from the server once
    /// ``deliveryLimit`` bytes wait. For a delegate that passes the body on to a slower reader.
    package func suspend() { isSuspended = true }

    /// Delivers body bytes again (what waits, at once) and lets libcurl read on.
    package func resume() {
        guard isSuspended else { return }
        isSuspended = false
        guard !isFinished else { return }
        markDirty()
        driver?.deliverDirty()
    }

    /// Stops the transfer; the delegate hears nothing more.
    package func cancel() {
        guard !isFinished else { return }
        isFinished = true
        delegate = nil
        driver?.remove(self)
    }

    private func configure() throws {
        guard let easy = cgw_curl_easy_init() else {
            throw HTTPTransferError(reason: .unavailable, code: 0, message: "curl_easy_init failed")
        }
        self.easy = easy
        func set(_ option: CInt, _ value: Int) throws {
            try check(cgw_curl_easy_setopt_long(easy, option, value))
        }
        func set(_ option: CInt, _ value: String) throws {
            try value.withCString { try check(cgw_curl_easy_setopt_pointer(easy, option, $0)) }
        }
        func check(_ code: CInt) throws {
            guard code == CGW_CURLE_OK else {
                throw HTTPTransferError(
                    reason: .unavailable, code: Int(code), message: String(cString: cgw_curl_easy_strerror(code)))
            }
        }
        // The URL libcurl gets has no user information (libcurl would send it as a credential),
        // and no redirect is followed by libcurl (the caller follows each, deciding which
        // credential, if any, goes with the next request).
        let target = try Self.requestTarget(request.url)
        try set(CGW_CURLOPT_URL, target.url)
        try set(CGW_CURLOPT_NOSIGNAL, 1)
        try set(CGW_CURLOPT_PROTOCOLS_STR, "http,https")
        try set(CGW_CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        try set(CGW_CURLOPT_FOLLOWLOCATION, 0)
        try set(CGW_CURLOPT_USERAGENT, request.userAgent)
        try set(CGW_CURLOPT_ACCEPT_ENCODING, "")
        try check(cgw_curl_easy_setopt_pointer(easy, CGW_CURLOPT_ERRORBUFFER, errorBuffer))
        if let timeout = request.connectTimeout {
            try set(CGW_CURLOPT_CONNECTTIMEOUT_MS, max(1, Int(timeout.milliseconds)))
        }
        if let caInfo = request.tls.caInfo { try set(CGW_CURLOPT_CAINFO, caInfo) }
        if let caPath = request.tls.caPath { try set(CGW_CURLOPT_CAPATH, caPath) }
        if !request.tls.verify {
            try set(CGW_CURLOPT_SSL_VERIFYPEER, 0)
            try set(CGW_CURLOPT_SSL_VERIFYHOST, 0)
        }
        // A credential only ever goes to the origin it was given for, whatever the caller asked.
        if let credential = request.credential, credential.origin == target.origin {
            try set(CGW_CURLOPT_USERNAME, credential.username)
            try set(CGW_CURLOPT_PASSWORD, credential.password?.revealed ?? "")
            // Any scheme the server offers, as git does once it has credentials, until a 401 said which.
            try set(CGW_CURLOPT_HTTPAUTH, request.authSchemes ?? cgw_curl_auth_any())
        }
        for line in request.headers { headerList = cgw_curl_slist_append(headerList, line) }
        for line in request.secretHeaders { headerList = cgw_curl_slist_append(headerList, line.revealed) }
        if let version = request.httpVersion {
            try set(
                CGW_CURLOPT_HTTP_VERSION,
                Int(version == .http2 ? CGW_CURL_HTTP_VERSION_2_0 : CGW_CURL_HTTP_VERSION_1_1))
        }
        if let lowSpeed = request.lowSpeed, lowSpeed.bytesPerSecond > 0, lowSpeed.seconds > 0 {
            try set(CGW_CURLOPT_LOW_SPEED_LIMIT, lowSpeed.bytesPerSecond)
            try set(CGW_CURLOPT_LOW_SPEED_TIME, lowSpeed.seconds)
        }
        if let proxy = request.proxy {
            // As git gives libcurl the proxy: the address alone, its kind, and the credentials apart.
            try set(CGW_CURLOPT_PROXY, proxy.address)
            if !proxy.address.isEmpty {
                try set(CGW_CURLOPT_PROXYTYPE, proxy.kind.curlValue)
                if let noProxy = proxy.noProxy { try set(CGW_CURLOPT_NOPROXY, noProxy) }
                if let username = proxy.username {
                    try set(CGW_CURLOPT_PROXYUSERNAME, username)
                    try set(CGW_CURLOPT_PROXYPASSWORD, proxy.password?.revealed ?? "")
                }
                try set(CGW_CURLOPT_PROXYAUTH, (proxy.authMethod ?? .anyauth).curlValue)
            }
        }
        if let headerList { try check(cgw_curl_easy_setopt_pointer(easy, CGW_CURLOPT_HTTPHEADER, headerList)) }
        let me = Unmanaged.passUnretained(self).toOpaque()
        if request.method == .post, request.bodySource != nil {
            // No size given: libcurl sends what the read callback gives as it gives it.
            try set(CGW_CURLOPT_POST, 1)
            try check(cgw_curl_easy_setopt_data_callback(easy, CGW_CURLOPT_READFUNCTION, curlRead))
            try check(cgw_curl_easy_setopt_pointer(easy, CGW_CURLOPT_READDATA, me))
        } else if request.method == .post {
            let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, request.body.count), alignment: 1)
            request.body.withUnsafeBytes { copy.copyMemory(from: $0) }
            bodyCopy = copy
            try set(CGW_CURLOPT_POST, 1)
            try check(cgw_curl_easy_setopt_off(easy, CGW_CURLOPT_POSTFIELDSIZE_LARGE, Int64(request.body.count)))
            try check(cgw_curl_easy_setopt_pointer(easy, CGW_CURLOPT_POSTFIELDS, copy.baseAddress))
        } else {
            try set(CGW_CURLOPT_HTTPGET, 1)
        }
        try check(cgw_curl_easy_setopt_data_callback(easy, CGW_CURLOPT_WRITEFUNCTION, curlWrite))
        try check(cgw_curl_easy_setopt_pointer(easy, CGW_CURLOPT_WRITEDATA, me))
        try check(cgw_curl_easy_setopt_data_callback(easy, CGW_CURLOPT_HEADERFUNCTION, curlHeader))
        try check(cgw_curl_easy_setopt_pointer(easy, CGW_CURLOPT_HEADERDATA, me))
    }

    /// The URL to give libcurl for `url` and its origin, both from one parse: the URL as written
    /// without user information or fragment. Anything but an `http(s)://` URL is refused.
    private static func requestTarget(_ url: String) throws -> (url: String, origin: HTTPOrigin) {
        do {
            let location = try SmartHTTP.Location(url)
            return (location.url, location.origin)
        } catch {
            throw HTTPTransferError(reason: .unavailable, code: 3, message: "\(error)")
        }
    }

    fileprivate func takeHeaderLine(_ line: String) {
        let trimmed = line.trimmingTrailingLineBreak()
        if trimmed.hasPrefix("HTTP/") {
            headLines = []
        } else if let colon = trimmed.firstIndex(of: ":") {
            let value = trimmed[trimmed.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            headLines.append((String(trimmed[..<colon]), String(value)))
        }
    }

    /// Hands what libcurl gave to the delegate, then lets libcurl read on if it was paused (what
    /// it held back may arrive during that call; the driver delivers it next).
    func deliverPending() {
        isDirty = false
        // A delivery already under way (this was reached from inside a delegate call) hands on
        // whatever arrives meanwhile.
        guard !isFinished, !isDelivering else { return }
        isDelivering = true
        defer { isDelivering = false }
        if !headDelivered {
            headDelivered = true
            delegate?.transfer(self, didReceive: head())
        }
        while !pending.isEmpty, !isFinished, !isSuspended {
            let bytes = pending
            pending = []
            delegate?.transfer(self, didReceive: bytes)
        }
        guard !isFinished, !isSuspended else { return }
        if let completedCode {
            finish(completedCode == CGW_CURLE_OK ? nil : error(for: completedCode))
        } else if isReceivePaused, let easy {
            isReceivePaused = false
            let code = cgw_curl_easy_unpause(easy)
            if code != CGW_CURLE_OK {
                driver?.remove(self)
                finish(error(for: code))
            }
        }
    }

    private func head() -> HTTPResponseHead {
        var status = 0
        var offered = 0
        if let easy {
            cgw_curl_easy_getinfo_long(easy, CGW_CURLINFO_RESPONSE_CODE, &status)
            cgw_curl_easy_getinfo_long(easy, CGW_CURLINFO_HTTPAUTH_AVAIL, &offered)
        }
        return HTTPResponseHead(status: status, headers: headLines, authSchemesOffered: offered)
    }

    /// libcurl finished the transfer with `code`.
    func complete(_ code: CInt) {
        guard !isFinished else { return }
        if code == CGW_CURLE_OK {
            completedCode = code
            // Finishes once the delegate has taken every byte (at once unless it is suspended).
            deliverPending()
        } else {
            finish(error(for: code))
        }
    }

    private func finish(_ error: HTTPTransferError?) {
        guard !isFinished else { return }
        isFinished = true
        let delegate = self.delegate
        self.delegate = nil
        delegate?.transfer(self, didFinishWith: error)
    }

    private func error(for code: CInt) -> HTTPTransferError {
        let detail = String(cString: errorBuffer)
        let message = detail.isEmpty ? String(cString: cgw_curl_easy_strerror(code)) : detail
        let reason: HTTPTransferError.Reason
        switch code {
        case CGW_CURLE_COULDNT_RESOLVE_HOST, CGW_CURLE_COULDNT_RESOLVE_PROXY, CGW_CURLE_COULDNT_CONNECT:
            reason = .connect
        case CGW_CURLE_OPERATION_TIMEDOUT:
            reason = .timedOut
        case CGW_CURLE_SSL_CONNECT_ERROR, CGW_CURLE_PEER_FAILED_VERIFICATION, CGW_CURLE_SSL_CERTPROBLEM,
            CGW_CURLE_SSL_CIPHER, CGW_CURLE_SSL_CACERT_BADFILE, CGW_CURLE_SSL_ISSUER_ERROR,
            CGW_CURLE_SSL_PINNEDPUBKEYNOTMATCH,
            CGW_CURLE_SSL_INVALIDCERTSTATUS, CGW_CURLE_SSL_CRL_BADFILE:
            reason = .tls
        default:
            reason = .transfer
        }
        return HTTPTransferError(reason: reason, code: Int(code), message: message)
    }
}

extension String {
    fileprivate func trimmingTrailingLineBreak() -> Substring {
        var text = self[...]
        while let last = text.last, last == "\n" || last == "\r" || last == "\r\n" { text = text.dropLast() }
        return text
    }
}

extension Duration {
    /// Whole milliseconds, rounded down.
    fileprivate var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}

private let curlWrite: cgw_curl_data_callback = { data, size, count, user in
    guard let user, let data else { return 0 }
    let transfer = Unmanaged<HTTPTransfer>.fromOpaque(user).takeUnretainedValue()
    let total = size * count
    if transfer.isFinished { return 0 }
    if transfer.isSuspended || transfer.pending.count >= HTTPTransfer.deliveryLimit {
        // libcurl keeps these bytes (and what it decodes from the same read) and reads nothing
        // more until it is unpaused, once the delegate has taken what waits.
        transfer.isReceivePaused = true
        return Int(CGW_CURL_WRITEFUNC_PAUSE)
    }
    data.withMemoryRebound(to: UInt8.self, capacity: total) {
        transfer.pending.append(contentsOf: UnsafeBufferPointer(start: $0, count: total))
    }
    transfer.markDirty()
    return total
}

/// A request body made while it is sent: libcurl's read callback pulls the next piece from
/// ``next`` whenever it has sent the last, on the run loop's thread. `next` must not start or
/// cancel transfers (it runs inside libcurl); it returns nil at the end, or throws to abandon the
/// request: the transfer then fails (libcurl's "aborted by callback") and ``failure`` says why.
package final class HTTPBodySource: @unchecked Sendable {
    private let next: () throws -> [UInt8]?
    private var piece: [UInt8] = []
    private var offset = 0
    private var ended = false
    /// Why the body was abandoned, if `next` threw.
    package private(set) var failure: (any Error)?
    /// Bytes handed to libcurl so far.
    package private(set) var sentByteCount = 0

    /// A body whose pieces `next` makes, in order.
    package init(_ next: @escaping () throws -> [UInt8]?) { self.next = next }

    /// Copies up to `capacity` bytes of the body to `destination`: 0 at its end, nil to abandon.
    fileprivate func fill(_ destination: UnsafeMutablePointer<CChar>, capacity: Int) -> Int? {
        guard failure == nil else { return nil }
        while offset == piece.count && !ended {
            do {
                if let more = try next() {
                    piece = more
                    offset = 0
                } else {
                    ended = true
                    piece = []
                    offset = 0
                }
            } catch {
                failure = error
                return nil
            }
        }
        let count = min(capacity, piece.count - offset)
        guard count > 0 else { return 0 }
        piece.withUnsafeBytes { bytes in
            UnsafeMutableRawPointer(destination).copyMemory(from: bytes.baseAddress! + offset, byteCount: count)
        }
        offset += count
        sentByteCount += count
        return count
    }
}

private let curlRead: cgw_curl_data_callback = { data, size, count, user in
    guard let user, let data else { return Int(CGW_CURL_READFUNC_ABORT) }
    let transfer = Unmanaged<HTTPTransfer>.fromOpaque(user).takeUnretainedValue()
    guard !transfer.isFinished, let source = transfer.request.bodySource,
        let copied = source.fill(data, capacity: size * count)
    else { return Int(CGW_CURL_READFUNC_ABORT) }
    return copied
}

private let curlHeader: cgw_curl_data_callback = { data, size, count, user in
    guard let user, let data else { return 0 }
    let transfer = Unmanaged<HTTPTransfer>.fromOpaque(user).takeUnretainedValue()
    let total = size * count
    let line = data.withMemoryRebound(to: UInt8.self, capacity: total) {
        String(decoding: UnsafeBufferPointer(start: $0, count: total), as: UTF8.self)
    }
    transfer.takeHeaderLine(line)
    return total
}

extension HTTPTransfer {
    fileprivate func markDirty() {
        guard !isDirty else { return }
        isDirty = true
        driver?.dirty.append(self)
    }
}
