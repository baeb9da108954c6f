import GitWire

/// The client connection of a scripted test server (``FakeGitServer``, ``HostileFetchServer``):
/// reads packets, writes bytes and waits for the client to close, every wait bounded by the
/// server's deadline.
struct ScriptedPeer {
    let pair: ByteStreamPair
    let deadline: ContinuousClock.Instant
    private var decoder = PktLineDecoder()

    init(_ pair: ByteStreamPair, deadline: ContinuousClock.Instant) {
        self.pair = pair
        self.deadline = deadline
    }

    /// The client's next packet; nil at the end of the stream, on an error or at the deadline.
    mutating func nextPacket() -> PktLine? {
        while true {
            if let packet = try? decoder.next() { return packet }
            let left = deadline - .now
            guard left > .zero else { return nil }
            pair.setTimeout(left)
            guard let bytes = try? pair.input.read(), !bytes.isEmpty else { return nil }
            decoder.append(bytes)
        }
    }

    /// Writes `bytes`; false if the write failed or the deadline passed.
    func send(_ bytes: [UInt8]) -> Bool {
        pair.setTimeout(max(deadline - .now, .milliseconds(1)))
        return (try? pair.output.writeFully(bytes)) != nil
    }

    /// Reads until the client closes the connection (end of stream or reset): true then, false
    /// if the deadline came first.
    func waitForClose() -> Bool {
        while true {
            let left = deadline - .now
            guard left > .zero else { return false }
            pair.setTimeout(left)
            do {
                if try pair.input.read().isEmpty { return true }
            } catch is StreamTimeoutError {
                return false
            } catch {
                return true
            }
        }
    }
}
