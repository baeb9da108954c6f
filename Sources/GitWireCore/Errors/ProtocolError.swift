/// The remote broke the protocol: what was wrong, with the offending line where there is one.
public struct ProtocolError: GitWireError, Hashable, Sendable {
    /// What kind of failure this is: ``GitWireErrorKind/protocol``.
    public var kind: GitWireErrorKind { .protocol }

    /// What was wrong.
    public let message: String
    /// Whether ``description`` starts with `protocol error: ` (false where git's words have no
    /// such prefix, as in `expected flush after ref listing`).
    public let prefixed: Bool

    /// Makes an error saying `message`, after `protocol error: `.
    public init(_ message: String) {
        self.message = message
        prefixed = true
    }

    /// Makes an error saying `message`, after `protocol error: ` unless `prefixed` is false.
    public init(_ message: String, prefixed: Bool) {
        self.message = message
        self.prefixed = prefixed
    }

    /// An error about `line`, shown escaped.
    public init(_ message: String, line: [UInt8]) {
        self.message = "\(message): '\(escapedForDisplay(line))'"
        prefixed = true
    }

    /// The text shown to users and in logs.
    public var description: String { prefixed ? "protocol error: \(message)" : message }
}
