import CGitWire
import GitWireCore

/// The libcurl multi handle of one run loop: libcurl says which sockets to watch and when to
/// call it back; the loop's epoll and timers do the watching.
final class CurlMultiDriver {
    private let multi: UnsafeMutableRawPointer
    private unowned let loop: EpollRunLoop
    private var transfers: [UnsafeMutableRawPointer: HTTPTransfer] = [:]
    private var sockets: [CInt: CurlSocketSource] = [:]
    private var timer: RunLoopTimer?
    var dirty: [HTTPTransfer] = []
    private var isDeliveringDirty = false

    static func driver(for loop: EpollRunLoop) throws -> CurlMultiDriver {
        if let driver = loop.curlDriver as? CurlMultiDriver { return driver }
        var message = [CChar](repeating: 0, count: 256)
        guard cgw_curl_load(&message, message.count) == 0 else {
            let text = message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
            throw HTTPTransferError(reason: .unavailable, code: 0, message: String(decoding: text, as: UTF8.self))
        }
        guard let multi = cgw_curl_multi_init() else {
            throw HTTPTransferError(reason: .unavailable, code: 0, message: "curl_multi_init failed")
        }
        let driver = CurlMultiDriver(multi: multi, loop: loop)
        cgw_curl_multi_set_callbacks(
            multi, curlSocketCallback, curlTimerCallback, Unmanaged.passUnretained(driver).toOpaque())
        loop.curlDriver = driver
        return driver
    }

    private init(multi: UnsafeMutableRawPointer, loop: EpollRunLoop) {
        self.multi = multi
        self.loop = loop
    }

    deinit {
        for (easy, _) in transfers { cgw_curl_multi_remove_handle(multi, easy) }
        cgw_curl_multi_cleanup(multi)
    }

    func add(_ transfer: HTTPTransfer) {
        guard let easy = transfer.easy else { return }
        transfers[easy] = transfer
        cgw_curl_multi_add_handle(multi, easy)
    }

    func remove(_ transfer: HTTPTransfer) {
        guard let easy = transfer.easy, transfers.removeValue(forKey: easy) != nil else { return }
        cgw_curl_multi_remove_handle(multi, easy)
    }

    fileprivate func watch(_ socket: CInt, what: CInt) {
        if what == CGW_CURL_POLL_REMOVE {
            if let source = sockets.removeValue(forKey: socket) { loop.unregister(source) }
            return
        }
        var interest: EpollEvents = []
        if what & CGW_CURL_POLL_IN != 0 { interest.insert(.readable) }
        if what & CGW_CURL_POLL_OUT != 0 { interest.insert(.writable) }
        if let source = sockets[socket] {
            source.interest = interest
            loop.updateInterest(source)
        } else {
            let source = CurlSocketSource(socket: socket, interest: interest, driver: self)
            sockets[socket] = source
            loop.register(source)
        }
    }

    fileprivate func setTimer(milliseconds: Int) {
        timer?.invalidate()
        timer = nil
        guard milliseconds >= 0 else { return }
        timer = loop.addTimer(after: .milliseconds(milliseconds)) { [unowned self] _ in
            timer = nil
            act(on: CGW_CURL_SOCKET_TIMEOUT, events: 0)
        }
    }

    fileprivate func act(on socket: CInt, events: CInt) {
        var running: CInt = 0
        cgw_curl_multi_socket_action(multi, socket, events, &running)
        deliverDirty()
        var easy: UnsafeMutableRawPointer?
        var code: CInt = CGW_CURLE_OK
        while cgw_curl_multi_next_done(multi, &easy, &code) != 0 {
            guard let easy, let transfer = transfers.removeValue(forKey: easy) else { continue }
            cgw_curl_multi_remove_handle(multi, easy)
            transfer.complete(code)
        }
    }

    /// Hands each transfer's waiting bytes to its delegate, until none waits (unpausing a transfer
    /// can bring more at once). Does nothing when called from inside such a delivery: the
    /// delivery under way goes round again.
    func deliverDirty() {
        guard !isDeliveringDirty else { return }
        isDeliveringDirty = true
        defer { isDeliveringDirty = false }
        while !dirty.isEmpty {
            let batch = dirty
            dirty = []
            for transfer in batch { transfer.deliverPending() }
        }
    }

    /// Whether `source` still watches `socket` (libcurl may have closed it meanwhile).
    fileprivate func isWatching(_ socket: CInt, source: CurlSocketSource) -> Bool { sockets[socket] === source }

    fileprivate func socketFailed(_ socket: CInt) {
        act(on: socket, events: CGW_CURL_CSELECT_ERR)
    }
}

/// One socket libcurl asked the loop to watch.
final class CurlSocketSource: LoopSource {
    let socket: CInt
    var interest: EpollEvents
    private unowned let driver: CurlMultiDriver
    package var registration = LoopRegistration()

    init(socket: CInt, interest: EpollEvents, driver: CurlMultiDriver) {
        self.socket = socket
        self.interest = interest
        self.driver = driver
    }

    package var watchedDescriptor: FileDescriptor? { FileDescriptor(rawValue: socket) }
    package var desiredInterest: EpollEvents { interest }

    package func handle(_ events: EpollEvents, in loop: EpollRunLoop) {
        var mask: CInt = 0
        if events.contains(.readable) || events.contains(.hangUp) { mask |= CGW_CURL_CSELECT_IN }
        if events.contains(.writable) { mask |= CGW_CURL_CSELECT_OUT }
        if events.contains(.error) { mask |= CGW_CURL_CSELECT_ERR }
        driver.act(on: socket, events: mask)
        // As the byte streams do after each read: acknowledge at once. A server that writes a
        // response's head and body apart under Nagle's algorithm (Python's http.server does)
        // otherwise waits for the delayed ACK, about 40 ms per request on a reused connection.
        if events.contains(.readable), driver.isWatching(socket, source: self) {
            Socket.requestQuickAck(FileDescriptor(rawValue: socket))
        }
    }

    package func loopCannotWatch(_ error: any Error) {
        driver.socketFailed(socket)
    }
}

private let curlSocketCallback: cgw_curl_socket_callback = { _, socket, what, user, _ in
    guard let user else { return 0 }
    Unmanaged<CurlMultiDriver>.fromOpaque(user).takeUnretainedValue().watch(socket, what: what)
    return 0
}

private let curlTimerCallback: cgw_curl_timer_callback = { _, milliseconds, user in
    guard let user else { return 0 }
    Unmanaged<CurlMultiDriver>.fromOpaque(user).takeUnretainedValue().setTimer(milliseconds: milliseconds)
    return 0
}

/// `reference` (a `Location` value) resolved against `base` by libcurl itself, as libcurl 7.88
/// resolves a redirect it follows; nil when libcurl refuses it or cannot be loaded. For tests
/// that hold gitwire's own resolution (``SmartHTTP/resolveRedirect(_:against:)``) to libcurl's.
package func libcurlResolvedRedirect(_ reference: String, against base: String) -> String? {
    var message = [CChar](repeating: 0, count: 256)
    guard cgw_curl_load(&message, message.count) == 0 else { return nil }
    var out = [CChar](repeating: 0, count: 8192)
    guard cgw_curl_url_resolve(base, reference, &out, out.count) == 0 else { return nil }
    return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
