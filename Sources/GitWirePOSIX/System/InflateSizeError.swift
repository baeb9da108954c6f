import CGitWire
import GitWireCore

/// An object's zlib stream did not inflate to the size its header gave.
public struct InflateSizeError: GitWireError, Sendable {
    /// What kind of failure this is: ``GitWireErrorKind/pack``.
    public var kind: GitWireErrorKind { .pack }

    /// The size the header gave.
    public let expected: Int
    /// Bytes inflated before stopping (one more than expected means "more than expected").
    public let produced: Int
    /// Whether the input ended before the zlib stream did.
    public let truncated: Bool

    /// The text shown to users and in logs.
    public var description: String {
        if truncated { return "zlib stream truncated after \(produced) of \(expected) bytes" }
        return
            "inflated size mismatch: expected \(expected) bytes, got \(produced > expected ? "more" : String(produced))"
    }
}
