/// What git's `clone` makes of the repository it is given before it connects (`get_repo_path`
/// in `builtin/clone.c`): a name that is a local repository is recorded as an absolute path in
/// `remote.<name>.url`; any other name must hold a `:` (a URL, an scp-like address, or a name
/// `url.<base>.insteadOf` rewrites) and is recorded as given, even when the rewritten URL is a
/// local one; a name that is neither makes git die with `repository '<name>' does not exist`.
package enum LocalCloneSource {
    /// Whether `name` is a local repository as git's `get_repo_path` finds one: a git directory
    /// (or a `.git` file naming one) at `name/.git`, `name`, `name.git/.git` or `name.git`, or a
    /// regular file at `name.bundle` or `name` (a bundle). `environment` is for
    /// `GIT_OBJECT_DIRECTORY`, which git's `is_git_directory` honours.
    package static func isLocalRepository(_ name: String, environment: [String: String]) -> Bool {
        guard !name.isEmpty, let finder = try? RepositoryFinder(start: nil, environment: environment) else {
            return false
        }
        for suffix in ["/.git", "", ".git/.git", ".git"] {
            let path = name + suffix
            guard let status = FileSystem.status(path) else { continue }
            if status.isDirectory {
                if finder.isGitDirectory(path) { return true }
            } else if status.isRegularFile, status.size > 8, let target = gitFileTarget(path),
                finder.isGitDirectory(target)
            {
                return true
            }
        }
        for suffix in [".bundle", ""] {
            if let status = FileSystem.status(name + suffix), status.isRegularFile { return true }
        }
        return false
    }

    /// The git directory the `.git` file (`gitdir: <path>`) at `path` names, nil when `path` is
    /// no such file (git's `read_gitfile`).
    static func gitFileTargetIfAny(_ path: String) -> String? {
        guard let status = FileSystem.status(path), status.isRegularFile, let target = gitFileTarget(path) else {
            return nil
        }
        return ConfigFiles.realPath(target) ?? target
    }

    /// The local repository `name` names, as git's `get_repo_path` finds it, made absolute (not
    /// resolved) as git's `absolute_pathdup`: the git directory, or the one a `.git` file names;
    /// nil when `name` is no local repository (or is a bundle).
    package static func repositoryPath(_ name: String, environment: [String: String]) -> String? {
        guard !name.isEmpty, let finder = try? RepositoryFinder(start: nil, environment: environment) else {
            return nil
        }
        func absolute(_ path: String) -> String? {
            if path.hasPrefix("/") { return path }
            guard let current = try? FileSystem.currentDirectory() else { return nil }
            return current == "/" ? "/\(path)" : "\(current)/\(path)"
        }
        for suffix in ["/.git", "", ".git/.git", ".git"] {
            let path = name + suffix
            guard let status = FileSystem.status(path) else { continue }
            if status.isDirectory {
                if finder.isGitDirectory(path) { return absolute(path) }
            } else if status.isRegularFile, status.size > 8, let target = gitFileTarget(path),
                finder.isGitDirectory(target)
            {
                return absolute(target)
            }
        }
        return nil
    }

    /// The git directory a `.git` file (`gitdir: <path>`) names, relative to the file's folder.
    private static func gitFileTarget(_ path: String) -> String? {
        guard let bytes = try? ConfigFiles.read(path, limit: 1 << 20), bytes.starts(with: "gitdir: ".utf8) else {
            return nil
        }
        var named = bytes.dropFirst(8)
        while let last = named.last, last == 0x0a || last == 0x0d { named.removeLast() }
        guard !named.isEmpty else { return nil }
        let target = String(decoding: named.prefix { $0 != 0 }, as: UTF8.self)
        if target.hasPrefix("/") { return target }
        guard let slash = path.lastIndex(of: "/") else { return target }
        return String(path[...slash]) + target
    }
}
