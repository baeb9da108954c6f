/// Splits bytes into pkt-lines as they arrive, in any chunking.
///
/// ``append(_:)`` adds bytes; ``next()`` returns the next whole packet, or nil when more bytes
/// are needed. Consumed bytes are dropped in bulk, never by copying the unread tail once per
/// packet, so a large advertisement decodes in linear time.
public struct PktLineDecoder: Sendable {
    private var buffer: [UInt8] = []
    private var readIndex = 0
    /// Bytes appended and not yet returned in a packet.
    public var bufferedByteCount: Int { buffer.count - readIndex }

    /// Makes an empty decoder.
    public init() {}

    /// Adds bytes received from the peer.
    public mutating func append<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            readIndex = 0
        } else if readIndex >= 64 * 1024 && readIndex * 2 >= buffer.count {
            buffer.removeSubrange(0..<readIndex)
            readIndex = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next whole packet, or nil if more bytes are needed. Throws ``PktLineError`` on a
    /// malformed length; the decoder should not be used after that.
    public mutating func next() throws -> PktLine? {
        guard let length = try peekLength() else { return nil }
        switch length {
        case 0:
            readIndex += 4
            return .flush
        case 1:
            readIndex += 4
            return .delimiter
        case 2:
            readIndex += 4
            return .responseEnd
        case 3, 4: throw PktLineError.badLength(length)
        default: break
        }
        guard buffer.count - readIndex >= length else { return nil }
        let payload = Array(buffer[(readIndex + 4)..<(readIndex + length)])
        readIndex += length
        return .data(payload)
    }

    /// Takes up to `maxCount` raw bytes that follow the packets read so far (for protocols that
    /// switch to raw data, such as a pack sent without side-band).
    public mutating func takeRawBytes(maxCount: Int = .max) -> [UInt8] {
        let end = readIndex + min(maxCount, bufferedByteCount)
        let bytes = Array(buffer[readIndex..<end])
        readIndex = end
        return bytes
    }

    /// Throws ``PktLineError/truncated(received:expected:)`` if a packet was cut off: call it when
    /// the input has ended.
    public func checkAtEnd() throws {
        let left = bufferedByteCount
        guard left > 0 else { return }
        let expected = (try? peekLength()).flatMap { $0 } ?? 4
        throw PktLineError.truncated(received: left, expected: max(expected, 4))
    }

    private func peekLength() throws -> Int? {
        guard buffer.count - readIndex >= 4 else { return nil }
        var length = 0
        for i in readIndex..<(readIndex + 4) {
            guard let digit = hexValue(buffer[i]) else {
                throw PktLineError.badLengthCharacters(Array(buffer[readIndex..<(readIndex + 4)]))
            }
            length = length << 4 | Int(digit)
        }
        if length > PktLine.maxLength { throw PktLineError.tooLong(length) }
        return length
    }
}
