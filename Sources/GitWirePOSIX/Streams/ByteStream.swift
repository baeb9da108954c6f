import GitWireCore

/// A stream of bytes over a file descriptor: the common part of ``ByteInputStream`` and
/// ``ByteOutputStream``.
///
/// A stream works in one of two ways. Scheduled in an ``EpollRunLoop``, it never blocks: its
/// ``delegate`` hears of what happens through ``ByteStreamDelegate/stream(_:handle:)``.
/// Unscheduled, its calls block (each wait bounded by ``timeout``): they run the same stream on a
/// private run loop of the calling thread until what they wait for has happened, so both ways
/// share one implementation of connecting, reading and writing: the descriptor channel that is
/// also the ``Connection`` of the `git://`, ssh and local transports. A stream is a face over that
/// channel. Streams belong to one thread.
public class ByteStream {
    package let channel: StreamChannel
    /// Where the stream is in its life.
    public internal(set) var status: ByteStreamStatus = .notOpen
    /// Why the stream failed, once ``status`` is ``ByteStreamStatus/error``.
    public internal(set) var error: (any Error)?
    /// Receives events while the stream is scheduled; kept alive until the stream closes.
    public var delegate: (any ByteStreamDelegate)?
    /// The longest a blocking call waits for the descriptor each time; nil waits forever.
    public var timeout: Duration?
    /// The run loop the stream is scheduled in.
    public internal(set) weak var runLoop: EpollRunLoop?
    /// Whether `openCompleted` still has to reach the delegate.
    private var owesOpenEvent = false

    package init(channel: StreamChannel) { self.channel = channel }

    package var isReading: Bool { false }

    /// Opens the stream. Unscheduled, a TCP stream connects now (bounded by the connect timeout)
    /// and errors are thrown. Scheduled, the connect starts and `openCompleted` (or
    /// `errorOccurred`) follows in the run loop.
    public func open() throws {
        guard status == .notOpen else {
            if status == .closed { throw StreamError.closed }
            return
        }
        if let loop = runLoop {
            if channel.isConnected {
                becomeOpen(in: loop)
            } else {
                status = .opening
                channel.startConnecting(in: loop)
            }
            return
        }
        if !channel.isConnected {
            status = .opening
            try whileScheduledPrivately { loop in
                channel.startConnecting(in: loop)
                // The channel's own connect timer bounds the wait.
                while status == .opening {
                    if try waitForEvent(in: loop, timeout: nil, activity: "connecting") == nil { break }
                }
            }
            guard status == .open else { throw error ?? StreamError.notOpen }
        }
        status = .open
        owesOpenEvent = true
    }

    // MARK: Blocking on a private loop

    /// Schedules the unscheduled stream in the calling thread's private loop for `body` (the
    /// blocking connect: the channel connects there exactly as it does in any loop), with a
    /// delegate that stops that loop at each event; the stream's own delegate comes back after.
    private func whileScheduledPrivately<T>(_ body: (EpollRunLoop) throws -> T) throws -> T {
        guard runLoop == nil else { throw StreamError.scheduled }
        let loop = try EpollRunLoop.privateLoop()
        let ownDelegate = delegate
        delegate = PrivateLoopWaiter(loop: loop)
        schedule(in: loop)
        defer {
            remove(from: loop)
            if status != .closed { delegate = ownDelegate }
        }
        return try body(loop)
    }

    /// Runs the private `loop` until an event of this stream arrives; throws
    /// ``StreamTimeoutError`` when `timeout` passes first. Returns the event (nil when the loop
    /// had nothing left to watch).
    private func waitForEvent(
        in loop: EpollRunLoop, timeout: Duration?, activity: String
    ) throws -> ByteStreamEvent? {
        guard let waiter = delegate as? PrivateLoopWaiter else { throw StreamError.scheduled }
        waiter.event = nil
        var timedOut = false
        let timer = timeout.map { timeout in
            loop.addTimer(after: timeout) { _ in
                timedOut = true
                loop.stop()
            }
        }
        loop.run()
        timer?.invalidate()
        if let event = waiter.event { return event }
        if timedOut { throw StreamTimeoutError(after: timeout ?? .zero, activity: activity) }
        return nil
    }

    /// Closes the stream: it leaves its run loop, drops its delegate, and its descriptor closes
    /// once the other stream of the pair (if any) is closed too. Closing twice does nothing.
    public func close() {
        guard status != .closed else { return }
        if let loop = runLoop { remove(from: loop) }
        status = .closed
        delegate = nil
        channel.streamDidClose(reading: isReading)
    }

    /// Schedules the stream in `loop`, where its events are delivered. Both streams of a socket
    /// must go in the same loop.
    public func schedule(in loop: EpollRunLoop) {
        guard runLoop == nil, status != .closed else { return }
        runLoop = loop
        attach(to: channel)
        channel.updateSchedule(in: loop)
        if status == .open && owesOpenEvent { becomeOpen(in: loop) }
        if status == .opening && channel.isConnected { becomeOpen(in: loop) }
    }

    /// Takes the stream out of `loop`; no more events are delivered. Safe inside a callback.
    public func remove(from loop: EpollRunLoop) {
        guard runLoop === loop else { return }
        detach(from: channel)
        runLoop = nil
        channel.updateSchedule(in: loop)
    }

    package func attach(to channel: StreamChannel) {}
    package func detach(from channel: StreamChannel) {}

    /// The channel connected (or was connected already): open, and tell the delegate.
    package func channelDidOpen() {
        guard status == .opening, let loop = runLoop else { return }
        becomeOpen(in: loop)
    }

    package func becomeOpen(in loop: EpollRunLoop) {
        status = .open
        owesOpenEvent = false
        loop.enqueue(.openCompleted, for: self)
        didOpen(in: loop)
    }

    package func didOpen(in loop: EpollRunLoop) {}

    /// Records a failure and tells the delegate.
    package func fail(_ error: any Error) {
        guard status != .closed, status != .error else { return }
        self.error = error
        status = .error
        runLoop?.enqueue(.errorOccurred, for: self)
    }

    /// Throws if the stream cannot be used for I/O now.
    package func checkUsable() throws {
        switch status {
        case .closed: throw StreamError.closed
        case .notOpen, .opening: throw StreamError.notOpen
        case .error: throw error ?? StreamError.closed
        case .open, .atEnd: return
        }
    }
}

@available(*, unavailable)
extension ByteStream: Sendable {}

/// The delegate of a stream on its thread's private loop: notes the event and stops the loop.
final class PrivateLoopWaiter: ByteStreamDelegate {
    private unowned let loop: EpollRunLoop
    var event: ByteStreamEvent?

    init(loop: EpollRunLoop) { self.loop = loop }

    func stream(_ stream: ByteStream, handle event: ByteStreamEvent) {
        self.event = event
        loop.stop()
    }
}
