/// A ``PackIndexer`` was used wrongly.
public enum PackIndexerError: GitWireError, Equatable, Sendable {
    /// What kind of failure this is: ``GitWireErrorKind/pack``.
    public var kind: GitWireErrorKind { .pack }

    /// A pack path does not end in `.pack`.
    case notAPackName(String)
    /// The indexer already finished or failed.
    case alreadyFinished

    /// The text shown to users and in logs.
    public var description: String {
        switch self {
        case .notAPackName(let path): return "packfile name '\(path)' does not end with '.pack'"
        case .alreadyFinished: return "the pack indexer has already finished"
        }
    }
}
