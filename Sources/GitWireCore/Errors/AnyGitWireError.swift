/// Any error, as a ``GitWireError``: what typed results hold (`Result` needs a concrete error
/// type). ``base`` is the error itself, to cast to its own type.
///
/// ```swift
/// case .failure(let error):
///     if error.kind == .notFound { forget(listing.url) }
///     if let http = error.base as? HTTPError { print(http.serverMessage ?? "") }
/// ```
public struct AnyGitWireError: GitWireError, Sendable {
    /// The error itself.
    public let base: any Error

    /// `error`, or the error inside it if it is already an `AnyGitWireError`.
    public init(_ error: any Error) {
        base = (error as? AnyGitWireError)?.base ?? error
    }

    /// The error's own kind; ``GitWireErrorKind/system`` for an error that is not a
    /// ``GitWireError`` (none of gitwire's own).
    public var kind: GitWireErrorKind { (base as? any GitWireError)?.kind ?? .system }

    /// The error's own description.
    public var description: String { String(describing: base) }
}
