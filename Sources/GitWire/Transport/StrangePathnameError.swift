/// A local repository path or ssh host that starts with `-`: git refuses it ("strange pathname",
/// "strange hostname"), since the program it is given to would read it as an option.
public struct StrangePathnameError: GitWireError, Hashable, Sendable {
    /// What kind of failure this is: ``GitWireErrorKind/usage``.
    public var kind: GitWireErrorKind { .usage }
    /// The path (or host name) as given.
    public let path: String
    /// What it is: `pathname` or `hostname`.
    public var what = "pathname"

    /// git's message: `strange pathname '<path>' blocked` (or `strange hostname`).
    public var description: String { "strange \(what) '\(escapedForDisplay(path.utf8))' blocked" }
}
