/// No repository could be found or used.
public struct RepositoryDiscoveryError: GitWireError, Hashable, Sendable {
    /// What went wrong.
    public enum Reason: Hashable, Sendable {
        /// No repository in the directory or any above it, up to a ceiling or the root.
        case notFound
        /// The walk stopped where the file system changes (at `directory`).
        case mountPoint(String)
        /// `GIT_DIR` (or a path given) does not name a repository.
        case notARepository(String)
        /// A `.git` file git cannot use: `message` is git's.
        case badGitFile(String)
        /// The repository belongs to another user and `safe.directory` does not name it.
        case dubiousOwnership(String)
        /// A bare repository found by walking, with `safe.bareRepository` set to `explicit`.
        case bareRepositoryNotAllowed(String)
        /// The repository's format is one git 2.39 does not read: `message` is git's.
        case unsupportedFormat(String)
        /// A directory could not be examined (`stat` failed): `message` is git's.
        case cannotExamine(String)
    }

    /// What went wrong.
    public let reason: Reason

    /// A discovery error for `reason`.
    public init(_ reason: Reason) { self.reason = reason }

    /// ``GitWireErrorKind/usage``: the user is not where a repository is, or it may not be used.
    public var kind: GitWireErrorKind { .usage }

    /// git's message.
    public var description: String {
        switch reason {
        case .notFound: return "not a git repository (or any of the parent directories): .git"
        case .mountPoint(let directory):
            return """
                not a git repository (or any parent up to mount point \(directory))
                Stopping at filesystem boundary (GIT_DISCOVERY_ACROSS_FILESYSTEM not set).
                """
        case .notARepository(let path): return "not a git repository: '\(path)'"
        case .badGitFile(let message), .unsupportedFormat(let message), .cannotExamine(let message): return message
        case .dubiousOwnership(let directory):
            return """
                detected dubious ownership in repository at '\(directory)'
                To add an exception for this directory, call:

                \tgit config --global --add safe.directory \(RepositoryFinder.prettyQuoted(directory))
                """
        case .bareRepositoryNotAllowed(let directory):
            return "cannot use bare repository '\(directory)' (safe.bareRepository is 'explicit')"
        }
    }
}
