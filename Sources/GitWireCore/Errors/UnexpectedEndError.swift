/// The connection ended before the exchange was complete.
public struct UnexpectedEndError: GitWireError, Hashable, Sendable {
    /// What kind of failure this is: ``GitWireErrorKind/remote``.
    public var kind: GitWireErrorKind { .remote }

    /// Whether the server had sent anything at all.
    public let afterInitialContact: Bool

    /// Makes the error.
    public init(afterInitialContact: Bool) { self.afterInitialContact = afterInitialContact }

    /// The text shown to users and in logs.
    public var description: String {
        if afterInitialContact { return "the remote end hung up upon initial contact" }
        return "Could not read from remote repository.\n\n"
            + "Please make sure you have the correct access rights\nand the repository exists."
    }
}
