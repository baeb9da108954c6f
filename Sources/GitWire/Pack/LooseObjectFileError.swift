/// A loose object file could not be decoded.
public struct LooseObjectFileError: GitWireError, Sendable {
    /// What kind of failure this is: ``GitWireErrorKind/system``.
    public var kind: GitWireErrorKind { .system }

    /// The file's path.
    public var path: String
    /// What is wrong with it.
    public var error: LooseObjectError

    /// The text shown to users and in logs.
    public var description: String { "\(path): \(error)" }
}
