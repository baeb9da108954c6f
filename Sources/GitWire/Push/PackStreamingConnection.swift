/// Wraps a push's connection so that the pack follows the commands: once ``writer`` is set, the
/// next bytes sent (the commands) are followed by the pack, streamed as the peer takes it (never
/// more than about ``highWater`` bytes queued) on a connection that persists, or over smart HTTP
/// in the commands' request: whole with `Content-Length` when it fits in `http.postBuffer`,
/// otherwise chunked as it is made, after git's probe request. A failure while the pack is going out is reported as
/// a lost connection "while sending the pack".
final class PackStreamingConnection: Connection, ConnectionHandler {
    private let inner: any Connection
    /// Whether the connection persists (false over smart HTTP's stateless requests).
    let persists: Bool
    private var handler: (any ConnectionHandler)?
    /// The pack to send after the next bytes.
    var writer: PackWriter?
    private var streaming = false
    private var sentPack = false
    /// Why the pack could not be made while a chunked request was sending it.
    private var packError: (any Error)?
    /// Queued bytes below which more of the pack is produced.
    static let highWater = 1 << 20
    /// Called with each piece of the pack as it is queued (progress).
    var onPackBytes: ((Int) -> Void)?

    init(_ inner: any Connection, persists: Bool) {
        self.inner = inner
        self.persists = persists
    }

    var greeting: [PktLine] { inner.greeting }
    var queuedByteCount: Int { inner.queuedByteCount }

    func start(handler: any ConnectionHandler) {
        self.handler = handler
        inner.start(handler: self)
    }

    func send(_ bytes: [UInt8]) {
        guard let writer, !streaming, !sentPack else { return inner.send(bytes) }
        streaming = true
        if persists {
            inner.send(bytes)
            pump()
            return
        }
        // One request: the commands and the pack. As git's remote-curl does, the body is
        // gathered in a buffer of http.postBuffer bytes; if it ends with room for one more
        // packet (git's LARGE_PACKET_MAX) to spare it goes whole, otherwise what was gathered starts a chunked request
        // and the rest of the pack follows as it is made.
        guard let streamed = inner as? any StreamedRequestConnection else { return sendWhole(bytes, writer) }
        let fits = streamed.postBuffer - PktLine.maxLength
        var body = bytes
        do {
            while body.count <= fits {
                guard let chunk = try writer.read(maxBytes: 256 << 10) else {
                    finishPack()
                    return inner.send(body)
                }
                onPackBytes?(chunk.count)
                body += chunk
            }
        } catch {
            return fail(error)
        }
        finishPack()
        streamed.sendStreamed(body) { [weak self] in
            guard let self, let writer = self.writer else { return nil }
            do {
                guard let chunk = try writer.read(maxBytes: 256 << 10) else { return nil }
                self.onPackBytes?(chunk.count)
                return chunk
            } catch {
                // Told to the handler when the request fails for it (not from inside libcurl).
                self.packError = error
                throw error
            }
        }
    }

    /// The commands and the whole pack as one request (a connection that cannot stream one).
    private func sendWhole(_ bytes: [UInt8], _ writer: PackWriter) {
        var body = bytes
        do {
            while let chunk = try writer.read() {
                onPackBytes?(chunk.count)
                body += chunk
            }
        } catch {
            return fail(error)
        }
        finishPack()
        inner.send(body)
    }

    func close() {
        handler = nil
        writer = nil
        inner.close()
    }

    /// Queues more of the pack while little is queued.
    private func pump() {
        guard streaming, let writer else { return }
        do {
            while inner.queuedByteCount < Self.highWater {
                guard let chunk = try writer.read(maxBytes: 256 << 10) else {
                    finishPack()
                    // As git's send-pack (pack-objects' end of the pipe closes with it): a
                    // receive-pack run as a child (file://, ssh) reads the end of its input
                    // after the pack; one that waits for it before reporting is not left
                    // waiting. A socket (git://) stays open both ways, as git leaves it.
                    if let channel = inner as? StreamChannel, channel.isChildProcess { channel.finishSending() }
                    return
                }
                onPackBytes?(chunk.count)
                inner.send(chunk)
            }
        } catch {
            fail(error)
        }
    }

    private func finishPack() {
        streaming = false
        sentPack = true
    }

    private func fail(_ error: any Error) {
        finishPack()
        handler?.connection(self, didFail: error)
    }

    // MARK: ConnectionHandler

    func connectionDidOpen(_ connection: any Connection) { handler?.connectionDidOpen(self) }

    func connection(_ connection: any Connection, didReceive bytes: [UInt8]) {
        handler?.connection(self, didReceive: bytes)
    }

    func connectionDidEnd(_ connection: any Connection) {
        if streaming {
            finishPack()
            handler?.connection(
                self, didFail: PushError(.connectionLost, "the remote end hung up unexpectedly while sending the pack"))
            return
        }
        handler?.connectionDidEnd(self)
    }

    func connection(_ connection: any Connection, didFail error: any Error) {
        if let packError {
            self.packError = nil
            handler?.connection(self, didFail: packError)
            return
        }
        if streaming, let error = error as? SystemCallError,
            error.errno == .connectionReset || error.errno == .brokenPipe
        {
            finishPack()
            handler?.connection(self, didFail: ConnectionLostError(activity: "sending the pack", reason: error))
            return
        }
        handler?.connection(self, didFail: error)
    }

    func connectionDidDrain(_ connection: any Connection) {
        pump()
        handler?.connectionDidDrain(self)
    }
}
