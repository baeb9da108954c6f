/// The remote broke the protocol: what was wrong, with the offending line where there is one.
public struct ProtocolError: GitWireError, Hashable, Sendable {
    /// What kind of failure this is: ``GitWireErrorKind/protocol``.
    public var kind: GitWireErrorKind { .protocol }

    /// What was wrong.
    public let message: String

    /// Makes an error saying `message`.
    public init(_ message: String) { self.message = message }

    /// An error about `line`, shown escaped.
    public init(_ message: String, line: [UInt8]) {
        self.message = "\(message): '\(escapedForDisplay(line))'"
    }

    /// The text shown to users and in logs.
    public var description: String { "protocol error: \(message)" }
}
