import GitWireCore

/// Reads bytes from a descriptor. See ``ByteStream`` for the blocking and run-loop modes.
public final class ByteInputStream: ByteStream {
    package override var isReading: Bool { true }

    package override func attach(to channel: StreamChannel) { channel.scheduledInput = self }
    package override func detach(from channel: StreamChannel) { channel.scheduledInput = nil }

    /// Whether the run loop should watch for readability.
    package var wantsReadiness: Bool { status == .open && delegate != nil }

    /// Opened while scheduled (a pipe, open from the start): the loop must watch it from now on.
    package override func didOpen(in loop: EpollRunLoop) { loop.updateInterest(channel) }

    /// Reads what is there, up to `maxLength` bytes. An empty result means the end of the input
    /// (``ByteStream/status`` becomes ``ByteStreamStatus/atEnd``) or, on a scheduled stream, that
    /// nothing is there yet. Unscheduled, it waits up to ``ByteStream/timeout`` for the first byte.
    public func read(maxLength: Int = 64 * 1024) throws -> [UInt8] {
        try checkUsable()
        if status == .atEnd { return [] }
        guard let descriptor = channel.descriptor else { throw StreamError.notOpen }
        while true {
            let result: IOResult<[UInt8]>
            do {
                result = try channel.readOnce(maxCount: maxLength)
            } catch {
                fail(error)
                throw error
            }
            switch result {
            case .done(let bytes):
                if bytes.isEmpty {
                    status = .atEnd
                    if let loop = runLoop {
                        loop.enqueue(.endEncountered, for: self)
                        loop.updateInterest(channel)
                    }
                }
                return bytes
            case .wouldBlock:
                if runLoop != nil { return [] }
                try EpollRunLoop.privateLoop().wait(
                    for: descriptor, writable: false, timeout: timeout, activity: "reading")
            }
        }
    }

    /// Reads exactly `count` bytes, blocking as needed. Throws
    /// ``StreamError/unexpectedEnd(received:expected:)`` if the input ends first. Memory grows with
    /// the bytes that arrive, not with `count`, so a count read from the wire cannot make it
    /// allocate what the peer never sends.
    public func readFully(_ count: Int) throws -> [UInt8] {
        guard runLoop == nil else { throw StreamError.scheduled }
        var result: [UInt8] = []
        result.reserveCapacity(min(count, 1 << 16))
        while result.count < count {
            let bytes = try read(maxLength: min(count - result.count, 1 << 20))
            if bytes.isEmpty { throw StreamError.unexpectedEnd(received: result.count, expected: count) }
            result += bytes
        }
        return result
    }

    /// Whether a read would return at once (with bytes, the end, or an error).
    public var hasBytesAvailable: Bool {
        guard status == .open, let descriptor = channel.descriptor else { return status == .atEnd }
        return (try? Poll.wait(descriptor, forWriting: false, timeout: .zero)) ?? true
    }
}
