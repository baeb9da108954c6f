/// A delta is malformed or does not fit its base. Positions are byte indexes into the delta.
public enum DeltaError: GitWireError, Equatable, Sendable {
    /// What kind of failure this is: ``GitWireErrorKind/pack``.
    public var kind: GitWireErrorKind { .pack }

    /// The delta is shorter than the smallest delta git applies (``Delta/minimumSize`` bytes).
    case tooShort(size: Int)
    /// The delta ends inside its size header.
    case truncatedHeader
    /// A size in the header does not fit in 64 bits.
    case sizeOverflow
    /// The base has another size than the delta expects.
    case baseSizeMismatch(expected: UInt64, actual: UInt64)
    /// Opcode 0 is reserved.
    case reservedOpcode(at: Int)
    /// The delta ends inside an instruction.
    case truncatedInstruction(at: Int)
    /// A copy reaches outside the base.
    case copyOutOfRange(at: Int, offset: Int, size: Int, baseSize: Int)
    /// An instruction would make the result longer than the header says.
    case resultTooLong(at: Int)
    /// The instructions ran out before the result reached the size the header says.
    case resultSizeMismatch(expected: UInt64, actual: UInt64)

    /// The text shown to users and in logs.
    public var description: String {
        switch self {
        case .tooShort(let size): return "delta of \(size) bytes is shorter than the \(Delta.minimumSize) git requires"
        case .truncatedHeader: return "delta ends inside its header"
        case .sizeOverflow: return "delta size overflows 64 bits"
        case .baseSizeMismatch(let expected, let actual):
            return "base size mismatch: delta expects \(expected) bytes, base has \(actual)"
        case .reservedOpcode(let at): return "reserved opcode 0 at delta byte \(at)"
        case .truncatedInstruction(let at): return "delta ends inside the instruction at byte \(at)"
        case .copyOutOfRange(let at, let offset, let size, let baseSize):
            return "delta copy out of range at byte \(at): \(size) bytes from \(offset), base has \(baseSize)"
        case .resultTooLong(let at): return "delta result longer than its header says, at byte \(at)"
        case .resultSizeMismatch(let expected, let actual):
            return "delta result size mismatch: header says \(expected) bytes, instructions make \(actual)"
        }
    }
}
