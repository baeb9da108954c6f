import Foundation
import GitWire
import GitWireTestSupport

/// A git:// upload-pack on loopback that negotiates like a protocol v0 (or v2) server and then
/// misbehaves as scripted, for tests of what clone and fetch do with a hostile server. It reads
/// the request line, sends the advertisement it was given, reads the client's wants and haves,
/// answers `NAK` to every batch and to `done` (or `ERR` after the wants), then follows its script.
/// In v2 it answers `ls-refs` with the refs it was given, each `fetch` without `done` with
/// `acknowledgments`/`NAK`, and the one with `done` with a `packfile` header before the script. It serves
/// up to `connections` clients one after the other and stops by itself after the last one or at
/// the end of its `lifetime` (scaled by `testSlowness`); every wait is bounded by that lifetime.
/// It listens on 127.0.0.1 only.
final class HostileFetchServer: Sendable {
    /// What the server does after the negotiation.
    enum Step: Sendable {
        /// Sends bytes exactly as given.
        case send([UInt8])
        /// Closes its side of the connection, then waits for the client to close.
        case hangUp
        /// Sends nothing more and waits (bounded by the lifetime) for the client to give up.
        case stall
        /// Resets the connection (the client reads `ECONNRESET`).
        case reset
        /// Waits this long (bounded by the lifetime) before the next step.
        case pause(Duration)
        /// Sends these bytes over and over until the client hangs up (or the lifetime ends).
        case flood([UInt8])
    }

    /// How the server answers the client's wants and haves.
    enum Negotiation: Sendable {
        /// `NAK` to every flush after the wants and to `done`, as upload-pack does when it finds
        /// nothing in common.
        case nak
        /// `ERR <message>` right after the wants' flush, then hangs up.
        case err(String)
        /// Answers that never end, until the client hangs up (or the lifetime ends): in v0,
        /// `ACK <want> continue` over and over after `done`; in v2, an `acknowledgments` section
        /// of `ACK <want>` lines for a request without `done`, a `wanted-refs` section of
        /// `<want> refs/heads/unasked` lines for one with it.
        case endless
        /// Shallow lines that never end, as the answer of a request that deepens: in v0, after
        /// the wants' flush, `shallow <want>` over and over; in v2, for the request with `done`,
        /// a `shallow-info` section of the same line over and over.
        case endlessShallow
        /// In v2, for the request with `done`: empty `shallow-info` sections, one after the other,
        /// that never end.
        case endlessSections
    }

    /// The protocol the server speaks, with what it advertises.
    enum Dialect: Sendable {
        /// Protocol v0: the ref advertisement (ending in a flush).
        case v0(advertisement: [UInt8])
        /// Protocol v2: the capability advertisement and the `ls-refs` answer (each ending in a
        /// flush).
        case v2(capabilities: [UInt8], refs: [UInt8])
    }

    /// What one client did.
    struct Connection: Sendable {
        /// The request line, without its length.
        var request: [UInt8] = []
        /// The ids the client wanted.
        var wants: [String] = []
        /// The number of `have` lines.
        var haves = 0
        /// Whether the client sent `done`.
        var sentDone = false
        /// Whether the client closed the connection while the server waited, rather than the
        /// server giving up at the end of its lifetime.
        var clientClosed = false
        /// How long the server waited in a ``Step/stall`` until the client closed.
        var stalledFor: Duration?
    }

    /// The port it listens on.
    let port: Int
    private let served = Locked<[Connection]>([])
    private let finished = DispatchSemaphore(value: 0)
    private let stalls = DispatchSemaphore(value: 0)
    private let lifetime: Duration

    /// Starts listening on 127.0.0.1 and serving on a thread of its own.
    init(
        _ dialect: Dialect, negotiation: Negotiation = .nak, then steps: [Step], connections: Int = 1,
        lifetime: Duration = .seconds(60)
    ) throws {
        let listener = try ListeningSocket(host: "127.0.0.1")
        port = listener.address.port
        self.lifetime = lifetime.scaledForSlowRuns
        let deadline = ContinuousClock.now + self.lifetime
        nonisolated(unsafe) let unsafeListener = listener
        let thread = Thread { [self] in
            for _ in 0..<connections {
                let left = deadline - .now
                guard left > .zero, let pair = try? unsafeListener.accept(timeout: left) else { break }
                let connection = Self.serve(
                    pair, dialect: dialect, negotiation: negotiation, steps: steps, deadline: deadline
                ) { stalls.signal() }
                pair.close()
                served.withLock { $0.append(connection) }
            }
            unsafeListener.close()
            finished.signal()
        }
        thread.start()
    }

    /// `git://127.0.0.1:PORT/<path>`.
    func url(_ path: String = "repo.git") -> String { "git://127.0.0.1:\(port)/\(path)" }

    /// Waits for the server to stop (bounded by its lifetime) and returns what its clients did.
    func finish() -> [Connection] {
        _ = finished.wait(timeout: .now() + .milliseconds(Int(lifetime.components.seconds * 1000) + 5000))
        return served.withLock { $0 }
    }

    /// Whether a ``Step/stall`` began within `timeout` (scaled by `testSlowness`); sleeps
    /// between looks instead of blocking a thread of the concurrency pool.
    func stallBegins(within timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout.scaledForSlowRuns
        while ContinuousClock.now < deadline {
            if stalls.wait(timeout: .now()) == .success { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return false
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private static func serve(
        _ pair: ByteStreamPair, dialect: Dialect, negotiation: Negotiation, steps: [Step],
        deadline: ContinuousClock.Instant, stalling: () -> Void
    ) -> Connection {
        var connection = Connection()
        var peer = ScriptedPeer(pair, deadline: deadline)
        func nextPacket() -> PktLine? { peer.nextPacket() }
        func send(_ bytes: [UInt8]) -> Bool { peer.send(bytes) }
        func waitForClose() { if peer.waitForClose() { connection.clientClosed = true } }

        /// Sends `bytes` over and over until a write fails or the lifetime ends.
        func flood(_ bytes: [UInt8]) {
            let chunk = Array(repeating: bytes, count: max(1, 8192 / max(bytes.count, 1))).flatMap { $0 }
            while ContinuousClock.now < deadline, send(chunk) {}
            waitForClose()
        }
        func flood(_ line: PktLine) { flood(line.encoded) }
        func wantLine(_ format: (String) -> String) -> PktLine {
            .text(format(connection.wants.first ?? String(repeating: "0", count: 40)))
        }

        func note(_ packet: PktLine) {
            guard let text = packet.text else { return }
            if text.hasPrefix("want ") {
                connection.wants.append(String(text.dropFirst(5).prefix(40)))
            } else if text.hasPrefix("have ") {
                connection.haves += 1
            } else if text == "done" {
                connection.sentDone = true
            }
        }

        guard case .data(let request)? = nextPacket() else { return connection }
        connection.request = request
        var advertisement: [UInt8]
        var v2Refs: [UInt8]?
        switch dialect {
        case .v0(let refs): advertisement = refs
        case .v2(let capabilities, let refs):
            advertisement = capabilities
            v2Refs = refs
        }
        guard send(advertisement) else { return connection }

        // v2: commands up to a flush each, until a `fetch` with `done`.
        if let v2Refs {
            commands: while true {
                var command: [PktLine] = []
                while let packet = nextPacket() {
                    command.append(packet)
                    if packet == .flush { break }
                }
                guard command.last == .flush else { break commands }
                if command.first?.text == "command=ls-refs" {
                    guard send(v2Refs) else { return connection }
                    continue
                }
                command.forEach(note)
                if case .err(let message) = negotiation {
                    _ = send(PktLine.text("ERR \(message)").encoded)
                    pair.output.close()
                    waitForClose()
                    return connection
                }
                if case .endless = negotiation {
                    let header = connection.sentDone ? "wanted-refs" : "acknowledgments"
                    guard send(PktLine.text(header).encoded) else { return connection }
                    flood(connection.sentDone ? wantLine { "\($0) refs/heads/unasked" } : wantLine { "ACK \($0)" })
                    return connection
                }
                if connection.sentDone, case .endlessShallow = negotiation {
                    guard send(PktLine.text("shallow-info").encoded) else { return connection }
                    flood(wantLine { "shallow \($0)" })
                    return connection
                }
                if connection.sentDone, case .endlessSections = negotiation {
                    flood(PktLine.text("shallow-info").encoded + PktLine.delimiter.encoded)
                    return connection
                }
                if connection.sentDone {
                    guard send(PktLine.text("packfile").encoded) else { return connection }
                    break commands
                }
                let acknowledgments = [PktLine.text("acknowledgments"), .text("NAK"), .flush]
                guard send(acknowledgments.flatMap(\.encoded)) else { return connection }
            }
        }

        // v0: wants up to a flush, then haves in batches (each answered at its flush) up to `done`.
        var wantsDone = false
        negotiating: while v2Refs == nil, let packet = nextPacket() {
            switch packet {
            case .flush:
                if !wantsDone {
                    wantsDone = true
                    if case .endlessShallow = negotiation {
                        flood(wantLine { "shallow \($0)" })
                        return connection
                    }
                    if case .err(let message) = negotiation {
                        _ = send(PktLine.text("ERR \(message)").encoded)
                        pair.output.close()
                        waitForClose()
                        return connection
                    }
                } else if !send(PktLine.text("NAK").encoded) {
                    return connection
                }
            case .data:
                note(packet)
                if connection.sentDone, case .endless = negotiation {
                    flood(wantLine { "ACK \($0) continue" })
                    return connection
                }
                if connection.sentDone {
                    guard send(PktLine.text("NAK").encoded) else { return connection }
                    break negotiating
                }
            default:
                break
            }
        }
        guard connection.sentDone else {
            waitForClose()
            return connection
        }

        for step in steps {
            switch step {
            case .send(let bytes):
                guard send(bytes) else { return connection }
            case .hangUp:
                pair.output.close()
                waitForClose()
                return connection
            case .stall:
                stalling()
                let start = ContinuousClock.now
                waitForClose()
                if connection.clientClosed { connection.stalledFor = .now - start }
                return connection
            case .reset:
                pair.abort()
                connection.clientClosed = true
                return connection
            case .flood(let bytes):
                flood(bytes)
                return connection
            case .pause(let duration):
                Thread.sleep(forTimeInterval: Self.seconds(min(duration, max(deadline - .now, .zero))))
            }
        }
        waitForClose()
        return connection
    }
}

/// A side-band packet: `band` followed by `payload`.
func sideBandPacket(_ band: UInt8, _ payload: some Collection<UInt8>) -> [UInt8] {
    PktLine.data([band] + Array(payload)).encoded
}
