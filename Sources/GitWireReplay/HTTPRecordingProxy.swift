import GitWire

/// A smart HTTP proxy that records what passes through it: any client (git itself included) sends
/// its requests to the proxy, which forwards each to the upstream server and streams the answer
/// back, and when the client closes its connection writes the session as a fixture in the form
/// gitwire's own HTTP recordings take: each request line and status line, the request bodies
/// (gzip undone) and the answers as pkt-lines (the discovery answer without its `# service=`
/// preamble). Credentials (`Authorization`) are forwarded and never recorded.
///
/// What it holds is bounded: a session records at most `recordingLimit` bytes (compressed
/// bodies counted as decoded; beyond, the connection is closed and fails with
/// ``RecordingLimitError``, no fixture written), and an upstream answer is read only as fast as
/// the client takes it (at most about 1 MiB waits for the client).
///
/// It runs on an `EpollRunLoop`; all its work happens on the loop's thread.
public final class HTTPRecordingProxy: SessionRecordingProxy {
    private let recorder: ProxyRecorder
    /// Paths of the fixtures written so far.
    public var writtenFixtures: [String] { recorder.writtenFixtures }
    /// Called after each fixture is written (or fails to be, with the error).
    public var onFinishedConnection: ((Result<String, any Error>) -> Void)? {
        get { recorder.onFinishedConnection }
        set { recorder.onFinishedConnection = newValue }
    }

    /// The default most bytes one session records: 256 MiB (a fixture of that is already far
    /// larger than any a test should carry).
    public static let defaultRecordingLimit = 256 << 20

    /// Listens on `listenHost`:`listenPort` and forwards to `upstream` (`http://host[:port]` or
    /// `https://…`; request paths are appended to it), writing fixtures into `outputDirectory` as
    /// `connection-001.session`, …, each of at most `recordingLimit` bytes of session data. A
    /// `user:password` in `upstream` goes to the upstream server, and to no other.
    public init(
        listenHost: String, listenPort: Int, upstream: String, outputDirectory: String, loop: EpollRunLoop,
        recordingLimit: Int = HTTPRecordingProxy.defaultRecordingLimit
    ) throws {
        let location = try SmartHTTP.Location(upstream)
        let base = location.base
        let credential = location.credential
        recorder = try ProxyRecorder(host: listenHost, port: listenPort, outputDirectory: outputDirectory, loop: loop) {
            client, finished in
            HTTPProxyConnection(
                client: client, upstream: base, credential: credential, loop: loop, limit: recordingLimit,
                onFinish: finished)
        }
    }

    /// The address the proxy listens on.
    public var address: SocketAddress { recorder.listener.address }

    /// Connections being forwarded now.
    public var openConnectionCount: Int { recorder.openConnectionCount }

    /// Stops accepting and closes every open connection.
    public func close() { recorder.close() }
}

@available(*, unavailable)
extension HTTPRecordingProxy: Sendable {}

/// What the `record-proxy` command needs of a recording proxy, git:// or HTTP.
public protocol SessionRecordingProxy: AnyObject {
    /// The address the proxy listens on.
    var address: SocketAddress { get }
    /// Connections being forwarded now.
    var openConnectionCount: Int { get }
    /// Called after each fixture is written (or fails to be, with the error).
    var onFinishedConnection: ((Result<String, any Error>) -> Void)? { get set }
    /// Stops accepting and closes every open connection.
    func close()
}

extension RecordingProxy: SessionRecordingProxy {}

/// One client connection of the HTTP proxy (the channel the transports use): its requests,
/// forwarded one at a time.
final class HTTPProxyConnection: ConnectionHandler, HTTPTransferDelegate, ProxiedConnection {
    private let client: StreamChannel
    private let upstream: String
    /// The upstream URL's own user name and password, for the upstream's origin.
    private let credential: HTTPCredential?
    private let loop: EpollRunLoop
    private var reader = HTTPRequestReader()
    private var queued: [ProxiedHTTPRequest] = []
    private var current: HTTPTransfer?
    private var currentIsDiscovery = false
    private var preamble: SmartHTTPPreamble?
    private var headSent = false
    private var recording: SessionAssembly
    private var discovered = false
    private var finished = false
    /// Whether the client has closed its side (it sends no more requests).
    private var clientEnded = false
    private let onFinish: (HTTPProxyConnection) -> Void
    /// Answer bytes waiting for the client beyond which the upstream transfer is suspended.
    private static let clientBacklogLimit = 1 << 20

    init(
        client: StreamChannel, upstream: String, credential: HTTPCredential?, loop: EpollRunLoop, limit: Int,
        onFinish: @escaping (HTTPProxyConnection) -> Void
    ) {
        self.client = client
        self.upstream = upstream
        self.credential = credential
        self.loop = loop
        self.recording = SessionAssembly(
            Session(
                transport: upstream.lowercased().hasPrefix("https:") ? "https" : "http", service: "", path: "",
                protocolVersion: .v0),
            limit: limit)
        self.onFinish = onFinish
        client.start(handler: self)
    }

    /// The recorded session; its header comes from the first discovery request.
    func session() throws -> Session {
        let session = try recording.result()
        guard discovered else { throw ProtocolError("the client made no smart HTTP discovery request") }
        return session
    }

    func connectionDidOpen(_ connection: any Connection) {}

    func connection(_ connection: any Connection, didReceive bytes: [UInt8]) {
        reader.append(bytes)
        do {
            while let request = try reader.next() { queued.append(request) }
        } catch {
            respond(status: 400, text: "\(error)\n")
            closeAll()
            return
        }
        startNext()
    }

    func connectionDidEnd(_ connection: any Connection) {
        clientEnded = true
        if current == nil && queued.isEmpty { closeAll() }
    }

    func connection(_ connection: any Connection, didFail error: any Error) { closeAll() }

    /// The client took what waited: read on from upstream.
    func connectionDidDrain(_ connection: any Connection) { current?.resume() }

    /// Records `bytes` from `direction` if the session has room for them; otherwise fails the
    /// recording and closes everything. Returns whether they were recorded.
    private func record(_ bytes: [UInt8], from direction: Session.Direction) -> Bool {
        guard recording.record(bytes, from: direction) else {
            closeAll()
            return false
        }
        return true
    }

    private func startNext() {
        guard current == nil, !finished, !queued.isEmpty else { return }
        let request = queued.removeFirst()
        let (path, query) = request.pathAndQuery
        currentIsDiscovery = request.method == "GET" && path.hasSuffix("/info/refs")
        preamble = nil
        headSent = false
        let protocolHeader = request.header("Git-Protocol")
        if currentIsDiscovery && !discovered {
            discovered = true
            recording.session.path = String(path.dropLast("/info/refs".count))
            recording.session.service = query.hasPrefix("service=") ? String(query.dropFirst(8)) : ""
            if let protocolHeader, protocolHeader.hasPrefix("version="),
                let number = Int(protocolHeader.dropFirst(8)), let version = ProtocolVersion(rawValue: number)
            {
                recording.session.protocolVersion = version
            }
        }
        if currentIsDiscovery, let service = Service(rawValue: recording.session.service) {
            preamble = SmartHTTPPreamble(service: service)
        }
        var body = request.body
        let gzipped = request.header("Content-Encoding")?.lowercased() == "gzip"
        if gzipped {
            do {
                // What the session still has room for, and one byte more to tell "too much".
                body = try gunzip(body, limit: recording.remaining + 1)
            } catch is GzipExpansionError {
                recording.failLimit()
                closeAll()
                return
            } catch {
                // Not gzip after all: recorded as sent.
            }
        }
        guard record(body, from: .client) else { return }
        var line = "\(request.method) \(request.target)"
        if let protocolHeader { line += " git-protocol=\(protocolHeader)" }
        if gzipped { line += " content-encoding=gzip" }
        recording.recordHTTP(line, from: .client)

        let forwarded =
            ["Content-Type", "Accept", "Git-Protocol", "Content-Encoding", "Authorization", "Pragma"]
            .compactMap { name in request.header(name).map { "\(name): \($0)" } } + ["Expect:"]
        current = HTTPTransfer(
            HTTPRequest(
                method: request.method == "POST" ? .post : .get, url: upstream + request.target, headers: forwarded,
                body: request.body, credential: credential,
                userAgent: request.header("User-Agent") ?? HTTPOptions.defaultUserAgent),
            delegate: self, in: loop)
    }

    func transfer(_ transfer: HTTPTransfer, didReceive head: HTTPResponseHead) {
        guard transfer === current else { return }
        let contentType = head.value(of: "Content-Type")
        recording.recordHTTP("\(head.status) \(contentType ?? "-")", from: .server)
        if head.status != 200 { preamble = nil }
        var lines = ["HTTP/1.1 \(head.status) \(Self.reason(head.status))"]
        for name in ["Content-Type", "Location", "WWW-Authenticate", "Cache-Control", "Expires", "Pragma"] {
            if let value = head.value(of: name) { lines.append("\(name): \(value)") }
        }
        lines.append("Transfer-Encoding: chunked")
        write(Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8))
        headSent = true
    }

    func transfer(_ transfer: HTTPTransfer, didReceive bytes: [UInt8]) {
        guard transfer === current else { return }
        if var filter = preamble {
            if let passed = try? filter.take(bytes) {
                guard record(passed, from: .server) else { return }
            }
            preamble = filter
        } else {
            guard record(bytes, from: .server) else { return }
        }
        write(Array(String(bytes.count, radix: 16).utf8) + [0x0d, 0x0a] + bytes + [0x0d, 0x0a])
        // A client slower than the upstream: read no further until it has taken this.
        if !finished, client.queuedByteCount >= Self.clientBacklogLimit { transfer.suspend() }
    }

    func transfer(_ transfer: HTTPTransfer, didFinishWith error: HTTPTransferError?) {
        guard transfer === current else { return }
        current = nil
        if let error {
            if headSent {
                closeAll()
            } else {
                respond(status: 502, text: "record-proxy: \(error.message)\n")
            }
        } else {
            write(Array("0\r\n\r\n".utf8))
        }
        if clientEnded && queued.isEmpty { closeAll() }
        startNext()
    }

    private func respond(status: Int, text: String) {
        let body = Array(text.utf8)
        write(
            Array(
                "HTTP/1.1 \(status) \(Self.reason(status))\r\nContent-Type: text/plain\r\nContent-Length: \(body.count)\r\n\r\n"
                    .utf8) + body)
    }

    /// Sends `bytes` to the client; a failure arrives as `didFail` and closes everything.
    private func write(_ bytes: [UInt8]) { client.send(bytes) }

    func closeAll() {
        guard !finished else { return }
        finished = true
        current?.cancel()
        current = nil
        recording.recordEnd(from: .server)
        recording.recordEnd(from: .client)
        // What is queued for the client still goes out (for up to five seconds).
        client.close()
        onFinish(self)
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 307: "Temporary Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        default: "Status"
        }
    }
}

/// One HTTP/1.1 request as a client sent it.
struct ProxiedHTTPRequest {
    var method: String
    var target: String
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }

    /// The target's path and query (without the `?`).
    var pathAndQuery: (Substring, Substring) {
        guard let mark = target.firstIndex(of: "?") else { return (target[...], "") }
        return (target[..<mark], target[target.index(after: mark)...])
    }
}

/// Splits what an HTTP/1.1 client sends into requests: request line, headers, and a body sized
/// by `Content-Length` or sent in chunks. Sizes are bounded: 64 KiB of headers, 256 MiB of body.
struct HTTPRequestReader {
    private var buffer: [UInt8] = []
    static let headerLimit = 64 * 1024
    static let bodyLimit = 256 << 20

    mutating func append(_ bytes: [UInt8]) { buffer += bytes }

    /// The next complete request, or nil until more bytes arrive.
    mutating func next() throws -> ProxiedHTTPRequest? {
        guard let headEnd = Self.find([0x0d, 0x0a, 0x0d, 0x0a], in: buffer[...]) else {
            if buffer.count > Self.headerLimit { throw ProtocolError("HTTP request headers over 64 KiB") }
            return nil
        }
        let lines = String(decoding: buffer[..<headEnd], as: UTF8.self).split(separator: "\r\n")
        guard let requestLine = lines.first else { throw ProtocolError("empty HTTP request") }
        let parts = requestLine.split(separator: " ")
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else {
            throw ProtocolError("bad HTTP request line: \(requestLine.prefix(80))")
        }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { throw ProtocolError("bad HTTP header line") }
            headers.append(
                (String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" })))
        }
        var request = ProxiedHTTPRequest(method: String(parts[0]), target: String(parts[1]), headers: headers, body: [])
        var rest = buffer[(headEnd + 4)...]
        if request.header("Transfer-Encoding")?.lowercased() == "chunked" {
            var body: [UInt8] = []
            while true {
                guard let lineEnd = Self.find([0x0d, 0x0a], in: rest) else { return nil }
                let sizeText =
                    String(decoding: rest[rest.startIndex..<lineEnd], as: UTF8.self)
                    .split(separator: ";").first ?? ""
                guard let size = Int(sizeText.trimmingSpaces, radix: 16), size >= 0,
                    size <= Self.bodyLimit - body.count
                else { throw ProtocolError("bad chunk size in HTTP request body") }
                let dataStart = lineEnd + 2
                guard rest.endIndex - dataStart >= size + 2 else { return nil }
                if size == 0 {
                    // The last chunk; no trailers are expected, only the final line break.
                    rest = rest[(dataStart + 2)...]
                    break
                }
                body += rest[dataStart..<(dataStart + size)]
                rest = rest[(dataStart + size + 2)...]
            }
            request.body = body
        } else if let lengthText = request.header("Content-Length") {
            guard let length = Int(lengthText), length >= 0, length <= Self.bodyLimit else {
                throw ProtocolError("bad Content-Length in HTTP request")
            }
            guard rest.count >= length else { return nil }
            request.body = Array(rest.prefix(length))
            rest = rest.dropFirst(length)
        }
        buffer = Array(rest)
        return request
    }

    private static func find(_ needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var index = haystack.startIndex
        while index + needle.count <= haystack.endIndex {
            if haystack[index] == needle[0] && haystack[index..<(index + needle.count)].elementsEqual(needle) {
                return index
            }
            index += 1
        }
        return nil
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String { String(self.filter { $0 != " " && $0 != "\t" }) }
}
