/// A repository address could not be used.
public struct RemoteURLError: GitWireError, Hashable, Sendable {
    /// What kind of failure this is: ``GitWireErrorKind/usage``.
    public var kind: GitWireErrorKind { .usage }

    /// The address as given, without its user information (``RemoteURL/withoutCredentials(_:)``):
    /// an error never holds a password.
    public let text: String
    /// What is wrong with it.
    public let reason: String

    /// An error saying `reason` about `text` (kept without its user information).
    public init(text: String, reason: String) {
        self.text = RemoteURL.withoutCredentials(text)
        self.reason = reason
    }

    /// `<reason>: <address>`.
    public var description: String { "\(reason): \(text)" }
}
