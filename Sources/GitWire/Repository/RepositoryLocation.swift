/// Where a repository's parts are: its git directory, the common directory its refs, objects
/// and configuration live in, and its work tree. Found as git finds it (``discover(from:environment:)``)
/// or opened at a path (``init(at:environment:)``).
///
/// ```swift
/// let here = try RepositoryLocation.discover()            // as `git rev-parse --git-dir` finds it
/// let repository = try Repository(here)
/// print(here.gitDirectory, here.workTree ?? "(bare)")
/// ```
public struct RepositoryLocation: Hashable, Sendable {
    /// The git directory, absolute: a work tree's `.git`, a linked work tree's
    /// `<common>/worktrees/<id>`, or the repository itself when it is bare.
    public var gitDirectory: String
    /// The directory shared by all work trees (`commondir`, `GIT_COMMON_DIR`): refs, objects and
    /// `config` are there. The git directory itself unless this is a linked work tree.
    public var commonDirectory: String
    /// The work tree, absolute; nil for a bare repository.
    public var workTree: String?
    /// The `.git` file that named the git directory (`gitdir: <path>`), if one did.
    public var gitFile: String?

    /// A location made of its parts.
    public init(gitDirectory: String, commonDirectory: String? = nil, workTree: String?, gitFile: String? = nil) {
        self.gitDirectory = gitDirectory
        self.commonDirectory = commonDirectory ?? gitDirectory
        self.workTree = workTree
        self.gitFile = gitFile
    }

    /// Whether the repository has no work tree here.
    public var isBare: Bool { workTree == nil }

    /// Finds the repository git would use when started in `directory` (the current directory
    /// when nil), as git's `setup_git_directory` finds it:
    ///
    /// - `GIT_DIR`, when set, names the git directory (a `.git` file there is followed);
    ///   `GIT_WORK_TREE`, `core.worktree` and `core.bare` then say where the work tree is;
    /// - otherwise each directory from `directory` up is tried in turn: its `.git` file
    ///   (`gitdir: <path>`), its `.git` directory, the directory itself as a bare repository;
    ///   the walk stops at the first entry of `GIT_CEILING_DIRECTORIES` above it, at the root,
    ///   and, unless `GIT_DISCOVERY_ACROSS_FILESYSTEM` is true, where the file system changes;
    /// - a repository found by walking must belong to the user (the work tree, the git directory
    ///   and the `.git` file; for root, the user `SUDO_UID` names too) unless `safe.directory`
    ///   in the system, global or command-line configuration names it (or is `*`); a bare one
    ///   is refused when `safe.bareRepository` is `explicit`;
    /// - its `core.repositoryformatversion` and `extensions.*` must be ones git 2.39 reads.
    ///
    /// - Parameters:
    ///   - directory: where the search starts; the current directory when nil.
    ///   - environment: the environment to read (`GIT_DIR`, `GIT_WORK_TREE`, `GIT_COMMON_DIR`,
    ///     `GIT_CEILING_DIRECTORIES`, `GIT_DISCOVERY_ACROSS_FILESYSTEM`, `HOME` and
    ///     `GIT_CONFIG_*` for `safe.*`); the process's own when nil.
    /// - Throws: ``RepositoryDiscoveryError`` with git's message when no repository is found or
    ///   it may not be used; ``ConfigError`` for configuration git cannot read.
    public static func discover(from directory: String? = nil, environment: [String: String]? = nil) throws
        -> RepositoryLocation
    {
        var finder = try RepositoryFinder(start: directory, environment: environment ?? Environment.all())
        return try finder.discover()
    }

    /// The repository at `path` itself, with no walk upwards and no ownership check (the caller
    /// named it, as `GIT_DIR` names one): `path` is a git directory (bare, or a `.git`), a
    /// `.git` file, or a work tree with a `.git` directory or file in it.
    ///
    /// - Throws: ``RepositoryDiscoveryError`` when `path` is none of these.
    public init(at path: String, environment: [String: String]? = nil) throws {
        var finder = try RepositoryFinder(start: nil, environment: environment ?? Environment.all())
        self = try finder.open(path)
    }
}
