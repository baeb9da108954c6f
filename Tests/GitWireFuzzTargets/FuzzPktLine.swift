import GitWire

/// The pkt-line decoder, held to one answer whatever the chunking, and the side-band
/// demultiplexer on what it decodes.
enum FuzzPktLine {
    static func run(_ data: [UInt8]) {
        var input = FuzzInput(data)
        let size = fuzzChunkSize(input.byte())
        let stream = input.rest()
        let whole = decode([stream])
        let pieces = decode(fuzzChunks(stream, size: size))
        fuzzInvariant(whole == pieces, "pkt-lines differ when fed in pieces of \(size): \(whole) / \(pieces)")

        // What decoded must encode back to the same bytes (lowercase digits aside).
        if case .lines(let lines, nil, let rest) = whole, rest == 0 {
            if let encoded = try? PktLineEncoder.encode(lines) {
                var decoder = PktLineDecoder()
                decoder.append(encoded)
                var again: [PktLine] = []
                while let line = try? decoder.next() { again.append(line) }
                fuzzInvariant(again == lines, "pkt-lines do not survive encoding")
            }
        }

        var demultiplexer = SideBandDemultiplexer()
        if case .lines(let lines, _, _) = whole {
            for line in lines {
                guard let event = try? demultiplexer.receive(line) else { break }
                if case .end = event { break }
            }
        }
    }

    enum Outcome: Equatable, CustomStringConvertible {
        /// The packets decoded, the error that stopped the decoder (as text) and the bytes left.
        case lines([PktLine], String?, Int)

        var description: String {
            guard case .lines(let lines, let error, let left) = self else { return "" }
            return "\(lines.count) lines, error \(error ?? "none"), \(left) bytes left"
        }
    }

    static func decode(_ chunks: [[UInt8]]) -> Outcome {
        var decoder = PktLineDecoder()
        var lines: [PktLine] = []
        for chunk in chunks {
            decoder.append(chunk)
            do {
                while let line = try decoder.next() { lines.append(line) }
            } catch {
                return .lines(lines, "\(error)", -1)
            }
        }
        var endError: String?
        do { try decoder.checkAtEnd() } catch { endError = "\(error)" }
        return .lines(lines, endError, decoder.bufferedByteCount)
    }
}
