/// A fetch that cannot go ahead: the server lacks a feature the request needs, or the options
/// do not fit together. Malformed answers are ``ProtocolError``s instead.
public struct FetchError: GitWireError, Hashable, Sendable {
    /// What kind of failure this is: ``GitWireErrorKind/usage`` for requests the server cannot
    /// serve, ``GitWireErrorKind/remote`` for a server that hung up early.
    public let kind: GitWireErrorKind
    /// What went wrong, in git's words where git has them.
    public let message: String

    /// An error of `kind` saying `message`.
    public init(_ kind: GitWireErrorKind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The text shown to users and in logs.
    public var description: String { message }
}
