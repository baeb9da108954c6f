/// Splits bytes into pkt-lines as they arrive, in any chunking, handing payloads out as views of
/// the bytes received rather than copies.
///
/// `append(_:)` takes the caller's bytes as they are (an array is shared,
/// not copied); ``nextView()`` returns the next whole packet with its payload a view of them, or
/// nil when more bytes are needed. The one copy is of a packet that began in one input and ends
/// in the next: its bytes are gathered into a buffer of its own once all of it has arrived. So a
/// pack received over side-band reaches the indexer with at most one copy per byte after `read`,
/// and a large advertisement decodes in linear time. ``next()`` is the same with an owned
/// payload, for callers that keep packets.
public struct PktLineDecoder: Sendable {
    /// The start of a packet that began in an earlier input (and, if input was appended before
    /// the earlier one was read, the packets after it): always before ``input``. Once read, its
    /// storage is reused only when no view handed out of it is still alive (copy-on-write decides).
    private var joined: [UInt8] = []
    private var joinedIndex = 0
    /// What is unread of the latest input: a view of the caller's bytes.
    private var input: ArraySlice<UInt8> = []
    /// Bytes copied so far (received bytes that went into a buffer of the decoder's own): the
    /// measure of the "at most one copy" promise, for tests and benchmarks.
    package private(set) var copiedByteCount = 0

    /// Bytes appended and not yet returned in a packet.
    public var bufferedByteCount: Int { joined.count - joinedIndex + input.count }

    /// Makes an empty decoder.
    public init() {}

    /// Adds bytes received from the peer, without copying them when what came before was all
    /// read: the decoder keeps a view of `bytes` until its packets are read. Hand over bytes the
    /// caller will not change (a buffer changed later is copied then, by copy-on-write).
    public mutating func append(_ bytes: ArraySlice<UInt8>) {
        guard !bytes.isEmpty else { return }
        if !input.isEmpty {
            // Appended before the last input was read: what is left of it joins the earlier bytes.
            spill(input.count)
        }
        input = bytes
    }

    /// Adds bytes received from the peer, sharing the array: it is not copied.
    public mutating func append(_ bytes: [UInt8]) { append(bytes[...]) }

    /// Adds bytes received from the peer, copying them into an array first.
    public mutating func append<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
        let array = Array(bytes)
        copiedByteCount += array.count
        append(array[...])
    }

    /// The next whole packet, or nil if more bytes are needed, with a data line's payload a view
    /// of the bytes appended (valid for as long as the caller keeps it). Throws ``PktLineError``
    /// on a malformed length; the decoder should not be used after that.
    public mutating func nextView() throws -> PktLineView? {
        if joinedIndex < joined.count { return try nextJoined() }
        guard input.count >= 4 else { return nil }
        let start = input.startIndex
        let length = try Self.length(input[start..<(start + 4)])
        if let special = try Self.special(length) {
            input = input[(start + 4)...]
            return special
        }
        guard input.count >= length else { return nil }
        let payload = input[(start + 4)..<(start + length)]
        input = input.count == length ? [] : input[(start + length)...]
        return .data(payload)
    }

    /// The next whole packet, or nil if more bytes are needed, with an owned payload. Throws
    /// ``PktLineError`` on a malformed length; the decoder should not be used after that.
    public mutating func next() throws -> PktLine? {
        try nextView().map(\.line)
    }

    /// Takes up to `maxCount` raw bytes that follow the packets read so far (for protocols that
    /// switch to raw data, such as a pack sent without side-band), as a view where they are all
    /// in the latest input.
    public mutating func takeRawView(maxCount: Int = .max) -> ArraySlice<UInt8> {
        let count = min(maxCount, bufferedByteCount)
        let fromJoined = min(count, joined.count - joinedIndex)
        if fromJoined == 0 {
            let end = input.startIndex + count
            defer { input = input[end...] }
            return input[..<end]
        }
        if count > fromJoined { spill(count - fromJoined) }
        defer { joinedIndex += count }
        return joined[joinedIndex..<(joinedIndex + count)]
    }

    /// Takes up to `maxCount` raw bytes that follow the packets read so far (for protocols that
    /// switch to raw data, such as a pack sent without side-band).
    public mutating func takeRawBytes(maxCount: Int = .max) -> [UInt8] {
        Array(takeRawView(maxCount: maxCount))
    }

    /// Throws ``PktLineError/truncated(received:expected:)`` if a packet was cut off: call it when
    /// the input has ended.
    public func checkAtEnd() throws {
        let left = bufferedByteCount
        guard left > 0 else { return }
        let head = Array((joined[joinedIndex...] + input).prefix(4))
        let expected = head.count == 4 ? ((try? Self.length(head[...])) ?? 4) : 4
        throw PktLineError.truncated(received: left, expected: max(expected, 4))
    }

    /// The next packet when it began in an earlier input: the bytes it needs are moved over from
    /// the latest input once they have all arrived.
    private mutating func nextJoined() throws -> PktLineView? {
        let have = joined.count - joinedIndex
        if have < 4 {
            guard have + input.count >= 4 else { return nil }
            spill(4 - have)
        }
        let start = joinedIndex
        let length = try Self.length(joined[start..<(start + 4)])
        if let special = try Self.special(length) {
            joinedIndex += 4
            return special
        }
        let buffered = joined.count - start
        if buffered < length {
            guard buffered + input.count >= length else { return nil }
            spill(length - buffered)
        }
        joinedIndex += length
        return .data(joined[(start + 4)..<(start + length)])
    }

    /// Moves the first `count` bytes of the latest input to the end of ``joined`` (emptied, with
    /// room for the largest packet, when the old bytes were all read).
    private mutating func spill(_ count: Int) {
        if joinedIndex == joined.count {
            // Views of the old bytes may be alive: emptying keeps the storage only when nothing
            // else holds it, and otherwise gives a new one, never a write into shared storage.
            joined.removeAll(keepingCapacity: true)
            joined.reserveCapacity(max(count, PktLine.maxLength))
            joinedIndex = 0
        }
        let end = input.startIndex + count
        joined.append(contentsOf: input[..<end])
        input = input.count == count ? [] : input[end...]
        copiedByteCount += count
    }

    /// The special packet of `length`, nil for a data line; throws for the lengths no packet has.
    private static func special(_ length: Int) throws -> PktLineView? {
        switch length {
        case 0: return .flush
        case 1: return .delimiter
        case 2: return .responseEnd
        case 3, 4: throw PktLineError.badLength(length)
        default: return nil
        }
    }

    /// The length that four hex digits give.
    private static func length(_ digits: ArraySlice<UInt8>) throws -> Int {
        var length = 0
        for byte in digits {
            guard let digit = hexValue(byte) else { throw PktLineError.badLengthCharacters(Array(digits)) }
            length = length << 4 | Int(digit)
        }
        if length > PktLine.maxLength { throw PktLineError.tooLong(length) }
        return length
    }
}

/// A pkt-line as ``PktLineDecoder/nextView()`` hands it out: a data line's payload is a view of
/// the bytes received, not a copy (gitoxide's borrowed packet lines).
public enum PktLineView: Hashable, Sendable {
    /// A data line's payload (without the four length digits).
    case data(ArraySlice<UInt8>)
    /// `0000`: the end of a message.
    case flush
    /// `0001`: separates sections of a protocol v2 message.
    case delimiter
    /// `0002`: the end of a protocol v2 response (stateless connections).
    case responseEnd

    /// A view of `line`'s payload.
    public init(_ line: PktLine) {
        switch line {
        case .data(let payload): self = .data(payload[...])
        case .flush: self = .flush
        case .delimiter: self = .delimiter
        case .responseEnd: self = .responseEnd
        }
    }

    /// The packet with its payload copied out.
    public var line: PktLine {
        switch self {
        case .data(let payload): return .data(Array(payload))
        case .flush: return .flush
        case .delimiter: return .delimiter
        case .responseEnd: return .responseEnd
        }
    }
}
