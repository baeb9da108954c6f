/// A local repository could not be read or changed as asked.
public enum RepositoryError: GitWireError, Hashable, Sendable {
    /// The directory is not a git repository.
    case notARepository(String)
    /// A file of the repository (its path) does not read as git writes it, at the line given
    /// (kept for the caller, never shown in ``description``).
    case corrupt(String, String)
    /// A loose ref (named in full) whose file holds neither an object id nor `ref: <name>`. What
    /// it holds is not shown: the file may be a symbolic link to any file of the user's (git's
    /// files backend follows such links too, and shows none of it either).
    case brokenRef(String)
    /// A ref name git would refuse.
    case badRefName(String)
    /// A ref no longer has the value it had when the update was planned.
    case refChanged(String)
    /// The destination of a clone exists and is not an empty directory.
    case destinationExists(String)
    /// A clone's `--reference` repository cannot serve as an alternate (git's words).
    case badReference(String)

    /// What kind of failure this is: ``GitWireErrorKind/usage`` for bad names and destinations,
    /// ``GitWireErrorKind/system`` otherwise.
    public var kind: GitWireErrorKind {
        switch self {
        case .badRefName, .destinationExists, .badReference: return .usage
        case .notARepository, .corrupt, .brokenRef, .refChanged: return .system
        }
    }

    /// The text shown to users, worded as git words it where git has the same error.
    public var description: String {
        switch self {
        case .notARepository(let path): return "not a git repository: '\(path)'"
        // Nothing of the line is shown: the file may be a symbolic link to any file of the user's
        // (`packed-refs` to `~/.git-credentials`, say; git 2.39 shows the line).
        case .corrupt(let path, _): return "\(path): unexpected content (not shown)"
        case .brokenRef(let name):
            return "broken ref '\(escapedForDisplay(name.utf8))': not an object id or a symbolic ref"
        case .badRefName(let name): return "refusing to create ref with bad name '\(escapedForDisplay(name.utf8))'"
        case .refChanged(let name): return "cannot lock ref '\(name)': it changed while fetching"
        case .destinationExists(let path):
            return "destination path '\(path)' already exists and is not an empty directory."
        case .badReference(let message): return message
        }
    }
}
