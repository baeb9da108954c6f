/// Traces pkt-lines the way git does for `GIT_TRACE_PACKET`, line for line in git's format, so a
/// gitwire trace can be compared with git's after the timestamps.
///
/// Once pack data starts (`PACK` or side-band `\1PACK`), one `PACK ...` line stands for it and
/// band-1 packets are no longer traced, as in git.
public final class PacketTrace: PacketObserver {
    private let destination: TraceDestination
    /// The name shown for this side, such as `ls-remote`, `fetch` or `clone`.
    public let identity: String
    private var inPack = false
    private var packOnSideBand = false

    /// A trace for `identity` if `GIT_TRACE_PACKET` asks for one (`1`, `true`, a descriptor
    /// number 3 to 9, or an absolute path), else nil.
    public init?(identity: String, setting: String? = Environment.value("GIT_TRACE_PACKET")) {
        guard let setting, let destination = TraceDestination(gitSetting: setting) else { return nil }
        self.destination = destination
        self.identity = identity
    }

    /// Traces `packet` as sent (`>`) or received (`<`).
    public func observe(_ packet: PktLine, direction: PacketDirection) { record(packet, sent: direction == .sent) }

    /// Records a packet sent (`>`) or received (`<`).
    public func record(_ line: PktLine, sent: Bool) {
        switch line {
        case .flush: emit(Array("0000".utf8), sent: sent)
        case .delimiter: emit(Array("0001".utf8), sent: sent)
        case .responseEnd: emit(Array("0002".utf8), sent: sent)
        case .data(let payload): record(payload: payload, sent: sent)
        }
    }

    private func record(payload: [UInt8], sent: Bool) {
        if inPack {
            if !packOnSideBand || payload.first == 1 { return }
        } else if payload.starts(with: Array("PACK".utf8)) || payload.starts(with: [1] + Array("PACK".utf8)) {
            inPack = true
            packOnSideBand = payload.first == 1
            emit(Array("PACK ...".utf8), sent: sent)
            return
        }
        emit(payload, sent: sent)
    }

    private func emit(_ payload: [UInt8], sent: Bool) {
        var line = Array("\(Environment.timestamp()) pkt-line.c:80".utf8)
        while line.count < 40 { line.append(0x20) }
        line += Array("packet: \(identity.leftPadded(to: 12, with: " "))\(sent ? ">" : "<") ".utf8)
        for byte in payload where byte != 0x0a {
            if byte >= 0x20 && byte <= 0x7e {
                line.append(byte)
            } else {
                // git prints the `char` with `%o`: where `char` is signed, bytes from 0x80 up come
                // out sign-extended (`\37777777703`), and gitwire's trace must match.
                let value = UInt32(bitPattern: Int32(CChar(truncatingIfNeeded: byte)))
                line += Array("\\\(String(value, radix: 8))".utf8)
            }
        }
        line.append(0x0a)
        destination.write(line)
    }
}

@available(*, unavailable)
extension PacketTrace: Sendable {}
