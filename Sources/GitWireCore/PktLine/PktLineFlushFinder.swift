/// Finds where a pkt-line stream reaches its first flush packet, as its bytes arrive in any
/// chunking, by reading only the length prefixes: packets are neither decoded nor copied.
///
/// Smart HTTP's discovery answer ends with the advertisement's flush; what a server sends after
/// it belongs to no request, and its transport stops reading there.
public struct PktLineFlushFinder: Sendable {
    /// Length digits of a packet whose prefix is cut by the chunking.
    private var digits: [UInt8] = []
    /// Bytes of the current packet still to skip.
    private var skip = 0
    /// Whether the flush was seen.
    public private(set) var foundFlush = false
    /// A malformed length was seen: everything counts as the stream's, for its decoder to refuse.
    private var gaveUp = false

    /// A finder at the start of a stream.
    public init() {}

    /// How many of `bytes` (the next ones of the stream) belong to it up to and including its
    /// first flush: all of them until the flush arrives, none after it.
    public mutating func count(in bytes: [UInt8]) -> Int {
        if foundFlush { return 0 }
        if gaveUp { return bytes.count }
        var index = 0
        while index < bytes.count {
            if skip > 0 {
                let taken = min(skip, bytes.count - index)
                skip -= taken
                index += taken
                continue
            }
            digits.append(bytes[index])
            index += 1
            guard digits.count == 4 else { continue }
            var length = 0
            for digit in digits {
                guard let value = hexValue(digit) else {
                    gaveUp = true
                    return bytes.count
                }
                length = length << 4 | Int(value)
            }
            digits = []
            switch length {
            case 0:
                foundFlush = true
                return index
            case 1, 2:
                break
            case 3, 4:
                gaveUp = true
                return bytes.count
            default:
                skip = length - 4
            }
        }
        return bytes.count
    }
}
