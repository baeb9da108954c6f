import GitWireCore

/// Writes bytes to a descriptor. See ``ByteStream`` for the blocking and run-loop modes.
///
/// Scheduled, ``write(_:)`` queues: bytes leave as the descriptor takes them, in order, and
/// `hasSpaceAvailable` comes once after opening and again each time the queue empties.
public final class ByteOutputStream: ByteStream {
    /// Bytes queued and not yet written.
    public var queuedByteCount: Int { channel.queuedBytes }
    private var closesWhenDrained = false

    package override var isReading: Bool { false }

    package override func attach(to channel: StreamChannel) { channel.scheduledOutput = self }
    package override func detach(from channel: StreamChannel) { channel.scheduledOutput = nil }

    /// Whether the run loop should watch for writability.
    package var wantsReadiness: Bool { status == .open && queuedByteCount > 0 }

    package override func didOpen(in loop: EpollRunLoop) {
        if queuedByteCount > 0 {
            loop.updateInterest(channel)
        } else {
            loop.enqueue(.hasSpaceAvailable, for: self)
        }
    }

    /// Writes `bytes`. Scheduled, they are queued (and written at once if the descriptor takes
    /// them); a failure arrives as `errorOccurred`. Unscheduled, this is ``writeFully(_:)``.
    public func write(_ bytes: [UInt8]) throws {
        guard let loop = runLoop else { return try writeFully(bytes) }
        if status == .closed || status == .error { try checkUsable() }
        guard !bytes.isEmpty else { return }
        let wasEmpty = queuedByteCount == 0
        channel.enqueue(bytes)
        if status == .open && wasEmpty {
            flushQueued(in: loop, announce: false)
        }
        loop.updateInterest(channel)
    }

    /// Writes all of `bytes`, looping over short writes and waiting up to ``ByteStream/timeout``
    /// each time the descriptor is full.
    public func writeFully(_ bytes: [UInt8]) throws {
        guard runLoop == nil else { throw StreamError.scheduled }
        try checkUsable()
        guard let descriptor = channel.descriptor else { throw StreamError.notOpen }
        var rest = bytes[...]
        while !rest.isEmpty {
            let result: IOResult<Int>
            do {
                result = try descriptor.write(rest, isSocket: channel.isSocket)
            } catch {
                fail(error)
                throw error
            }
            switch result {
            case .done(let written):
                rest = rest.dropFirst(written)
            case .wouldBlock:
                try EpollRunLoop.privateLoop().wait(
                    for: descriptor, writable: true, timeout: timeout, activity: "writing")
            }
        }
    }

    /// Whether the queue is empty and the stream is open.
    public var hasSpaceAvailable: Bool { status == .open && queuedByteCount == 0 }

    /// Writes queued bytes until the descriptor is full or the queue is empty; an emptied queue
    /// is announced with `hasSpaceAvailable` unless `announce` is false.
    package func flushQueued(in loop: EpollRunLoop, announce: Bool = true) {
        guard channel.descriptor != nil, status == .open else { return }
        switch channel.flushQueue() {
        case .blocked: return
        case .failed(let error):
            fail(error)
            return
        case .drained: break
        }
        if closesWhenDrained {
            close()
        } else if announce {
            loop.enqueue(.hasSpaceAvailable, for: self)
        }
    }

    /// Closes the stream once every queued byte has been written (at once if none is queued).
    /// Unlike ``close()``, nothing written before is lost.
    public func closeAfterWriting() {
        if queuedByteCount == 0 || status != .open || runLoop == nil {
            close()
        } else {
            closesWhenDrained = true
        }
    }

    override public func close() {
        channel.discardQueued()
        super.close()
    }
}
