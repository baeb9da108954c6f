/// One pkt-line (`man gitprotocol-common`): a data line or one of the three special packets.
public enum PktLine: Hashable, Sendable {
    /// A data line's payload (without the four length digits).
    case data([UInt8])
    /// `0000`: the end of a message.
    case flush
    /// `0001`: separates sections of a protocol v2 message.
    case delimiter
    /// `0002`: the end of a protocol v2 response (stateless connections).
    case responseEnd

    /// The largest pkt-line, length digits included.
    public static let maxLength = 65520
    /// The largest payload of a data line.
    public static let maxPayload = maxLength - 4

    /// A data line holding `text` as UTF-8, with a newline added (as git writes text lines).
    public static func text(_ text: String) -> PktLine { .data(Array(text.utf8) + [0x0a]) }

    /// The payload of a data line, nil for special packets.
    public var payload: [UInt8]? {
        if case .data(let bytes) = self { return bytes }
        return nil
    }

    /// The payload as text with one trailing newline removed, nil for special packets.
    public var text: String? {
        guard var bytes = payload else { return nil }
        if bytes.last == 0x0a { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the encoded packet (lowercase length digits, as git writes them) to `buffer`.
    /// Precondition: a payload fits in ``maxPayload`` bytes (see ``PktLineEncoder``).
    public func encode(into buffer: inout [UInt8]) {
        switch self {
        case .flush: buffer += Array("0000".utf8)
        case .delimiter: buffer += Array("0001".utf8)
        case .responseEnd: buffer += Array("0002".utf8)
        case .data(let payload):
            let length = payload.count + 4
            for shift in [12, 8, 4, 0] { buffer.append(lowercaseHexDigits[(length >> shift) & 0xf]) }
            buffer += payload
        }
    }

    /// The encoded packet.
    public var encoded: [UInt8] {
        var buffer: [UInt8] = []
        encode(into: &buffer)
        return buffer
    }
}

private let lowercaseHexDigits: [UInt8] = Array("0123456789abcdef".utf8)

/// Encodes messages made of several packets into one buffer, so each request leaves in one write.
public enum PktLineEncoder {
    /// The packets of `lines`, one after another. Throws ``PktLineError/payloadTooLong(_:)`` if a
    /// payload does not fit in one pkt-line.
    public static func encode(_ lines: [PktLine]) throws -> [UInt8] {
        var buffer: [UInt8] = []
        for line in lines {
            if let payload = line.payload, payload.count > PktLine.maxPayload {
                throw PktLineError.payloadTooLong(payload.count)
            }
            line.encode(into: &buffer)
        }
        return buffer
    }
}
