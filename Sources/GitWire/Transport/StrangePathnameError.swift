/// A local repository path that starts with `-`: git refuses it ("strange pathname"), since the
/// program it is given to would read it as an option.
public struct StrangePathnameError: GitWireError, Hashable, Sendable {
    /// What kind of failure this is: ``GitWireErrorKind/usage``.
    public var kind: GitWireErrorKind { .usage }
    /// The path as given.
    public let path: String

    /// git's message: `strange pathname '<path>' blocked`.
    public var description: String { "strange pathname '\(escapedForDisplay(path.utf8))' blocked" }
}
