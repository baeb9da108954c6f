/// Git's delta format: a base size, a result size and copy/insert instructions. Both functions are
/// pure over bytes.
public enum Delta {
    /// The smallest delta git applies: two one-byte sizes and one two-byte instruction
    /// (`DELTA_SIZE_MIN` in git's `delta.h`). Shorter ones are refused, as git refuses them, even
    /// those that would make an empty result.
    public static let minimumSize = 4

    /// The base and result sizes a delta starts with, and where its instructions start.
    public struct Header: Equatable, Sendable {
        /// The size the base must have.
        public var baseSize: UInt64
        /// The size of the result.
        public var resultSize: UInt64
        /// The index in the delta where the instructions start.
        public var instructionsStart: Int

        /// Makes a header.
        public init(baseSize: UInt64, resultSize: UInt64, instructionsStart: Int) {
            self.baseSize = baseSize
            self.resultSize = resultSize
            self.instructionsStart = instructionsStart
        }
    }

    /// Reads the two sizes at the start of `delta`.
    public static func header(_ delta: ArraySlice<UInt8>) throws(DeltaError) -> Header {
        var index = delta.startIndex
        let baseSize = try readSize(delta, &index)
        let resultSize = try readSize(delta, &index)
        return Header(baseSize: baseSize, resultSize: resultSize, instructionsStart: index)
    }

    /// Applies `delta` to `base` and returns the result. Throws when the delta is shorter than
    /// ``minimumSize``, the base has another size than the delta expects, an instruction is
    /// reserved, truncated or copies from outside the base, or the result does not come out at the
    /// size the delta gives.
    public static func apply(_ delta: ArraySlice<UInt8>, to base: ArraySlice<UInt8>) throws(DeltaError) -> [UInt8] {
        guard delta.count >= minimumSize else { throw .tooShort(size: delta.count) }
        let header = try header(delta)
        guard header.baseSize == UInt64(base.count) else {
            throw .baseSizeMismatch(expected: header.baseSize, actual: UInt64(base.count))
        }
        // Reserve the size the header claims, but never more than twice the base plus the delta, so a
        // lying header cannot force a huge allocation; a longer result grows as it is made.
        let bound = UInt64(base.count) &* 2 &+ UInt64(delta.count)
        let resultSize = header.resultSize
        var result: [UInt8] = []
        result.reserveCapacity(Int(min(resultSize, bound)))
        var index = header.instructionsStart
        let end = delta.endIndex
        let baseStart = base.startIndex
        while index < end {
            let instruction = Int(index - delta.startIndex)
            let opcode = delta[index]
            index += 1
            if opcode & 0x80 != 0 {
                var copyOffset = 0
                var copySize = 0
                for bit in 0..<4 where opcode & (1 << bit) != 0 {
                    guard index < end else { throw .truncatedInstruction(at: instruction) }
                    copyOffset |= Int(delta[index]) << (8 * bit)
                    index += 1
                }
                for bit in 0..<3 where opcode & (0x10 << bit) != 0 {
                    guard index < end else { throw .truncatedInstruction(at: instruction) }
                    copySize |= Int(delta[index]) << (8 * bit)
                    index += 1
                }
                if copySize == 0 { copySize = 0x10000 }
                guard copyOffset + copySize <= base.count else {
                    throw .copyOutOfRange(at: instruction, offset: copyOffset, size: copySize, baseSize: base.count)
                }
                guard UInt64(result.count + copySize) <= resultSize else { throw .resultTooLong(at: instruction) }
                result.append(contentsOf: base[baseStart + copyOffset..<baseStart + copyOffset + copySize])
            } else if opcode != 0 {
                let count = Int(opcode)
                guard end - index >= count else { throw .truncatedInstruction(at: instruction) }
                guard UInt64(result.count + count) <= resultSize else { throw .resultTooLong(at: instruction) }
                result.append(contentsOf: delta[index..<index + count])
                index += count
            } else {
                throw .reservedOpcode(at: instruction)
            }
        }
        guard UInt64(result.count) == resultSize else {
            throw .resultSizeMismatch(expected: resultSize, actual: UInt64(result.count))
        }
        return result
    }

    private static func readSize(_ delta: ArraySlice<UInt8>, _ index: inout Int) throws(DeltaError) -> UInt64 {
        var size: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard index < delta.endIndex else { throw .truncatedHeader }
            let byte = delta[index]
            index += 1
            let bits = UInt64(byte & 0x7f)
            guard shift < 64, (bits << shift) >> shift == bits else { throw .sizeOverflow }
            size |= bits << shift
            shift += 7
            if byte & 0x80 == 0 { return size }
        }
    }
}
