import CGitWire
import GitWireCore

/// A zlib stream is corrupt or ended early.
public struct ZlibError: GitWireError, Sendable {
    /// What kind of failure this is: ``GitWireErrorKind/pack``.
    public var kind: GitWireErrorKind { .pack }

    /// zlib's status code.
    public let code: Int32
    /// zlib's message, when it gave one.
    public let message: String

    /// The text shown to users and in logs.
    public var description: String { message.isEmpty ? "zlib error \(code)" : "zlib error \(code): \(message)" }
}
