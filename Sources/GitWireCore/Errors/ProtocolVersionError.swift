/// The request needs a newer protocol than the server speaks: server options sent to a server
/// that answered in protocol v0 or v1. The caller's to fix (``GitWireErrorKind/usage``), in
/// git's words, with the hint git prints before it.
public struct ProtocolVersionError: GitWireError, Hashable, Sendable {
    /// What kind of failure this is: ``GitWireErrorKind/usage``.
    public var kind: GitWireErrorKind { .usage }

    /// What the request needs, as git says it.
    public let message: String
    /// What git prints as a `hint:` line before the error: where to read about the setting.
    public let hint: String

    /// Server options (`-o`, `--server-option`) were given but the server speaks v0 or v1.
    public static let serverOptions = ProtocolVersionError(
        message: "server options require protocol version 2 or later",
        hint: "see protocol.version in 'git help config' for more details")

    /// The text shown to users and in logs.
    public var description: String { message }
}
