import GitWire

/// One line of a fixture's byte listing: a pkt-line shown as text or base64, a special packet,
/// raw bytes that are not (canonical) pkt-lines, or the end of a side.
enum FixtureToken: Hashable {
    case packetText([UInt8])
    case packetBase64([UInt8])
    case flush
    case delimiter
    case responseEnd
    case raw([UInt8])
    case end
    case http(String)

    /// Splits bytes into tokens. A packet becomes a `pkt` token only if re-encoding it gives back
    /// exactly the same bytes (lowercase length digits); anything else from there on is raw, so
    /// the listing always turns back into the original bytes.
    static func tokens(for bytes: [UInt8]) -> [FixtureToken] {
        var tokens: [FixtureToken] = []
        forEachToken(in: bytes) { tokens.append($0) }
        return tokens
    }

    /// Hands the tokens of `bytes` (see ``tokens(for:)``) to `body` one by one, none of them held
    /// after its call.
    static func forEachToken(in bytes: [UInt8], _ body: (FixtureToken) throws -> Void) rethrows {
        var index = 0
        while index < bytes.count {
            guard bytes.count - index >= 4, let length = canonicalLength(bytes[index..<(index + 4)]) else { break }
            switch length {
            case 0: try body(.flush)
            case 1: try body(.delimiter)
            case 2: try body(.responseEnd)
            default:
                guard length > 4, bytes.count - index >= length else {
                    try forEachRawToken(bytes[index...], body)
                    return
                }
                let payload = Array(bytes[(index + 4)..<(index + length)])
                try body(looksLikeText(payload) ? .packetText(payload) : .packetBase64(payload))
                index += length
                continue
            }
            index += 4
        }
        if index < bytes.count { try forEachRawToken(bytes[index...], body) }
    }

    /// The bytes the token stands for.
    var bytes: [UInt8] {
        switch self {
        case .packetText(let payload), .packetBase64(let payload): return PktLine.data(payload).encoded
        case .flush: return PktLine.flush.encoded
        case .delimiter: return PktLine.delimiter.encoded
        case .responseEnd: return PktLine.responseEnd.encoded
        case .raw(let bytes): return bytes
        case .end, .http: return []
        }
    }

    /// The token as a fixture line (without indentation).
    var line: String {
        switch self {
        case .packetText(let payload): return "pkt \"\(FixtureText.escape(payload))\""
        case .packetBase64(let payload): return "pkt64 \(Base64.encode(payload))"
        case .flush: return "flush"
        case .delimiter: return "delim"
        case .responseEnd: return "response-end"
        case .raw(let bytes): return "raw \(Base64.encode(bytes))"
        case .end: return "end"
        case .http(let text): return "http \"\(FixtureText.escape(Array(text.utf8)))\""
        }
    }

    /// Parses a fixture line (without indentation); nil if it is not a token.
    init?(line: Substring) {
        switch line {
        case "flush": self = .flush
        case "delim": self = .delimiter
        case "response-end": self = .responseEnd
        case "end": self = .end
        default:
            if line.hasPrefix("pkt \""), line.hasSuffix("\""), line.count >= 6,
                let payload = FixtureText.unescape(line.dropFirst(5).dropLast())
            {
                self = .packetText(payload)
            } else if line.hasPrefix("pkt64 "), let payload = Base64.decode(line.dropFirst(6)) {
                self = .packetBase64(payload)
            } else if line.hasPrefix("http \""), line.hasSuffix("\""), line.count >= 7,
                let text = FixtureText.unescape(line.dropFirst(6).dropLast())
            {
                self = .http(String(decoding: text, as: UTF8.self))
            } else if line.hasPrefix("raw "), let bytes = Base64.decode(line.dropFirst(4)) {
                self = .raw(bytes)
            } else {
                return nil
            }
        }
    }

    private static func forEachRawToken(_ bytes: ArraySlice<UInt8>, _ body: (FixtureToken) throws -> Void) rethrows {
        for start in stride(from: bytes.startIndex, to: bytes.endIndex, by: 57) {
            try body(.raw(Array(bytes[start..<min(start + 57, bytes.endIndex)])))
        }
    }

    /// The length the four digits give, if they are the lowercase digits git writes.
    private static func canonicalLength(_ digits: ArraySlice<UInt8>) -> Int? {
        var length = 0
        for digit in digits {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): length = length << 4 | Int(digit - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): length = length << 4 | Int(digit - UInt8(ascii: "a") + 10)
            default: return nil
            }
        }
        return length == 3 || length > PktLine.maxLength ? nil : length
    }

    /// Text if only a few bytes would need `\x` escapes.
    private static func looksLikeText(_ payload: [UInt8]) -> Bool {
        FixtureText.escapeCount(payload) <= 2 + payload.count / 16
    }
}
