/// A loose object's bytes are not a valid loose object.
public enum LooseObjectError: GitWireError, Equatable, Sendable {
    /// What kind of failure this is: ``GitWireErrorKind/pack``.
    public var kind: GitWireErrorKind { .pack }

    /// The `<type> <size>\0` header is malformed.
    case badHeader
    /// The content is not as long as the header says.
    case sizeMismatch
    /// The zlib stream is corrupt or ends early.
    case corruptStream(String)
    /// Bytes follow the zlib stream.
    case trailingGarbage

    /// The text shown to users and in logs.
    public var description: String {
        switch self {
        case .badHeader: return "bad loose object header"
        case .sizeMismatch: return "loose object size does not match its header"
        case .corruptStream(let message): return "corrupt loose object stream (\(message))"
        case .trailingGarbage: return "garbage at end of loose object"
        }
    }
}
