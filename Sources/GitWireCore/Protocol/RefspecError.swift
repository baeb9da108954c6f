/// A refspec git would refuse.
public struct RefspecError: GitWireError, Hashable, Sendable {
    /// What kind of failure this is: ``GitWireErrorKind/usage``.
    public var kind: GitWireErrorKind { .usage }
    /// The refspec as given.
    public let text: String

    /// git's message for it.
    public var description: String { "invalid refspec '\(text)'" }
}
