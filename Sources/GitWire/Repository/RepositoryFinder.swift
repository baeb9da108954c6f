/// git's `setup_git_directory_gently_1` and its helpers, on the paths and environment given.
struct RepositoryFinder {
    let environment: [String: String]
    /// The directory the search starts in, absolute.
    let start: String
    private var protectedConfiguration: GitConfiguration?

    init(start: String?, environment: [String: String]) throws {
        self.environment = environment
        let cwd = try FileSystem.currentDirectory()
        if let start {
            let absolute = start.hasPrefix("/") ? start : cwd + "/" + start
            self.start = ConfigFiles.realPath(absolute) ?? ConfigPaths.normalized(absolute)
        } else {
            self.start = cwd
        }
    }

    private func absolute(_ path: String, from directory: String) -> String {
        let joined = path.hasPrefix("/") ? path : (directory.hasSuffix("/") ? directory : directory + "/") + path
        return Self.trimmingSlashes(ConfigPaths.normalized(joined))
    }

    private static func trimmingSlashes(_ path: String) -> String {
        var path = path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        if path.hasSuffix("/.") && path.count > 2 { path.removeLast(2) }
        return path
    }

    // MARK: The walk

    mutating func discover() throws -> RepositoryLocation {
        if let gitDir = environment["GIT_DIR"] {
            return try explicit(gitDir)
        }
        var ceiling = -1
        if let ceilings = environment["GIT_CEILING_DIRECTORIES"] {
            var emptyFound = false
            var prefixes: [String] = []
            for entry in ceilings.split(separator: ":", omittingEmptySubsequences: false).map(String.init) {
                if entry.isEmpty {
                    emptyFound = true
                } else if !entry.hasPrefix("/") {
                    continue
                } else if emptyFound {
                    prefixes.append(entry)
                } else if let real = ConfigFiles.realPath(entry) {
                    prefixes.append(real)
                }
            }
            ceiling = Self.longestAncestorLength(start, prefixes)
        }
        let oneFileSystem = !(ConfigValue.bool(environment["GIT_DISCOVERY_ACROSS_FILESYSTEM"] ?? "false") ?? false)
        var directory = Array(start.utf8)
        let minimum = 1
        var device: UInt64 = 0
        if oneFileSystem {
            guard let status = FileSystem.status(start) else {
                throw RepositoryDiscoveryError(
                    .cannotExamine("failed to stat '\(start)': \(Errno.current.description)"))
            }
            device = status.device
        }
        while true {
            let here = String(decoding: directory, as: UTF8.self)
            let dotGit = (here == "/" ? "" : here) + "/.git"
            if let target = try readGitFile(dotGit) {
                try checkOwnership(gitFile: dotGit, workTree: here, gitDirectory: target, report: here)
                return try located(gitDirectory: target, gitFile: dotGit, discoveredIn: here)
            }
            if FileSystem.isDirectory(dotGit) && isGitDirectory(dotGit) {
                try checkOwnership(gitFile: nil, workTree: here, gitDirectory: dotGit, report: here)
                return try located(gitDirectory: dotGit, gitFile: nil, discoveredIn: here)
            }
            if isGitDirectory(here) {
                if try protectedConfig().string("safe.bareRepository") == "explicit" {
                    throw RepositoryDiscoveryError(.bareRepositoryNotAllowed(here))
                }
                try checkOwnership(gitFile: nil, workTree: nil, gitDirectory: here, report: here)
                return try located(gitDirectory: here, gitFile: nil, discoveredIn: nil)
            }
            var offset = directory.count
            if offset <= minimum { throw RepositoryDiscoveryError(.notFound) }
            offset -= 1
            while offset > ceiling && directory[offset] != UInt8(ascii: "/") { offset -= 1 }
            if offset <= ceiling { throw RepositoryDiscoveryError(.notFound) }
            directory.removeSubrange(max(offset, minimum)...)
            if oneFileSystem {
                let parent = String(decoding: directory, as: UTF8.self)
                guard let status = FileSystem.status(parent) else {
                    throw RepositoryDiscoveryError(
                        .cannotExamine("failed to stat '\(parent)': \(Errno.current.description)"))
                }
                if status.device != device { throw RepositoryDiscoveryError(.mountPoint(parent)) }
            }
        }
    }

    /// git's `longest_ancestor_length`: the length of the longest entry of `prefixes` that is a
    /// proper ancestor directory of `path`, or -1.
    static func longestAncestorLength(_ path: String, _ prefixes: [String]) -> Int {
        guard path != "/" else { return -1 }
        let bytes = Array(path.utf8)
        var longest = -1
        for prefix in prefixes {
            var ceiling = Array(prefix.utf8)
            if ceiling.last == UInt8(ascii: "/") { ceiling.removeLast() }
            let length = ceiling.count
            guard bytes.count > length + 1, bytes.starts(with: ceiling), bytes[length] == UInt8(ascii: "/") else {
                continue
            }
            longest = max(longest, length)
        }
        return longest
    }

    // MARK: Explicit directories

    /// `GIT_DIR`: a git directory (or a `.git` file) named by the user.
    private mutating func explicit(_ given: String) throws -> RepositoryLocation {
        let path = absolute(given, from: start)
        var gitDirectory = path
        var gitFile: String?
        if let target = try readGitFile(path) {
            gitDirectory = target
            gitFile = path
        }
        guard isGitDirectory(gitDirectory) else { throw RepositoryDiscoveryError(.notARepository(given)) }
        let format = try checkFormat(gitDirectory)
        var workTree: String?
        if let tree = environment["GIT_WORK_TREE"] {
            workTree = absolute(tree, from: start)
        } else if format.bare == true {
            workTree = nil
        } else if let tree = format.workTree {
            workTree = absolute(tree, from: gitDirectory)
        } else if let implicit = environment["GIT_IMPLICIT_WORK_TREE"], ConfigValue.bool(implicit) == false {
            workTree = nil
        } else {
            workTree = start
        }
        return RepositoryLocation(
            gitDirectory: gitDirectory, commonDirectory: commonDirectory(of: gitDirectory), workTree: workTree,
            gitFile: gitFile)
    }

    /// The repository at `path` itself (see ``RepositoryLocation/init(at:environment:)``).
    mutating func open(_ given: String) throws -> RepositoryLocation {
        let path = absolute(given, from: start)
        if let target = try readGitFile(path) {
            return try located(gitDirectory: target, gitFile: path, discoveredIn: FileSystem.parentDirectory(of: path))
        }
        let dotGit = (path == "/" ? "" : path) + "/.git"
        if let target = try readGitFile(dotGit) {
            return try located(gitDirectory: target, gitFile: dotGit, discoveredIn: path)
        }
        if FileSystem.isDirectory(dotGit) && isGitDirectory(dotGit) {
            return try located(gitDirectory: dotGit, gitFile: nil, discoveredIn: path)
        }
        if isGitDirectory(path) {
            // A `.git` directory named itself has its work tree above it, as `git --git-dir`
            // gives it one (unless the repository says it is bare).
            let name = path.split(separator: "/").last.map(String.init)
            return try located(
                gitDirectory: path, gitFile: nil,
                discoveredIn: name == ".git" ? FileSystem.parentDirectory(of: path) : nil)
        }
        throw RepositoryDiscoveryError(.notARepository(given))
    }

    /// The location of a git directory found in `directory` (nil: found as a bare repository),
    /// with its work tree as the repository's configuration sets it.
    private mutating func located(gitDirectory: String, gitFile: String?, discoveredIn directory: String?) throws
        -> RepositoryLocation
    {
        let format = try checkFormat(gitDirectory)
        var workTree = directory
        if let tree = environment["GIT_WORK_TREE"] {
            workTree = absolute(tree, from: start)
        } else if let tree = format.workTree {
            workTree = absolute(tree, from: gitDirectory)
        } else if format.bare == true {
            workTree = nil
        }
        return RepositoryLocation(
            gitDirectory: gitDirectory, commonDirectory: commonDirectory(of: gitDirectory), workTree: workTree,
            gitFile: gitFile)
    }

    // MARK: git's checks

    /// git's `read_gitfile_gently` for a `.git` file at `path`: the real path of the directory
    /// it names, nil when there is no regular file there, git's error for one it cannot use.
    func readGitFile(_ path: String) throws -> String? {
        guard let status = FileSystem.status(path), status.isRegularFile else { return nil }
        if status.size > 1 << 20 {
            throw RepositoryDiscoveryError(.badGitFile("too large to be a .git file: '\(path)'"))
        }
        let bytes: [UInt8]
        do {
            bytes = try ConfigFiles.read(path, limit: 1 << 20)
        } catch {
            throw RepositoryDiscoveryError(.badGitFile("error opening '\(path)': \(error.reason)"))
        }
        guard bytes.starts(with: "gitdir: ".utf8) else {
            throw RepositoryDiscoveryError(.badGitFile("invalid gitfile format: \(path)"))
        }
        var length = bytes.count
        while length > 0 && (bytes[length - 1] == 0x0a || bytes[length - 1] == 0x0d) { length -= 1 }
        guard length >= 9 else { throw RepositoryDiscoveryError(.badGitFile("no path in gitfile: \(path)")) }
        // The path stops at a NUL, as git's C string does.
        let named = bytes[8..<length].prefix { $0 != 0 }
        var target = String(decoding: named, as: UTF8.self)
        if !target.hasPrefix("/"), let slash = path.lastIndex(of: "/") {
            target = String(path[...slash]) + target
        }
        guard isGitDirectory(target) else {
            throw RepositoryDiscoveryError(.badGitFile("not a git repository: \(target)"))
        }
        return ConfigFiles.realPath(target) ?? target
    }

    /// git's `is_git_directory`: a `HEAD` that reads as a ref (or a link into `refs/`), and
    /// `objects` (or `GIT_OBJECT_DIRECTORY`) and `refs` directories that can be entered.
    func isGitDirectory(_ path: String) -> Bool {
        let base = path.hasSuffix("/") ? path : path + "/"
        guard Self.isValidHead(base + "HEAD") else { return false }
        let common = commonDirectory(of: path)
        if let objects = environment["GIT_OBJECT_DIRECTORY"] {
            guard FileSystem.isSearchable(objects) else { return false }
        } else if !FileSystem.isSearchable(common + "/objects") {
            return false
        }
        return FileSystem.isSearchable(common + "/refs")
    }

    /// git's `validate_headref`.
    static func isValidHead(_ path: String) -> Bool {
        guard let status = FileSystem.status(path, followingLinks: false) else { return false }
        if status.isSymbolicLink {
            return FileSystem.symbolicLinkTarget(path)?.hasPrefix("refs/") == true
        }
        guard let bytes = try? ConfigFiles.read(path, limit: 255) else { return false }
        if bytes.starts(with: "ref:".utf8) {
            let rest = bytes.dropFirst(4).drop { GitCType.isSpace($0) }
            return rest.starts(with: "refs/".utf8)
        }
        // Read before the repository's format is known: git's validate_headref takes SHA-1's
        // length of hex.
        return bytes.count >= 40 && ObjectID(hex: bytes.prefix(40), format: .sha1) != nil
    }

    /// git's `get_common_dir`.
    func commonDirectory(of gitDirectory: String) -> String {
        LoadContext.commonDirectory(of: gitDirectory, environment: environment)
    }

    /// What a repository's `config` says of its format, and of where its work tree is.
    struct Format {
        var bare: Bool?
        var workTree: String?
    }

    /// git's `check_repository_format_gently`: the common directory's `config` read for
    /// `core.repositoryformatversion` and `extensions.*` (refused as git refuses them), and for
    /// `core.bare` and `core.worktree` (from `config.worktree` when `extensions.worktreeConfig`
    /// is set; not at all for a linked work tree).
    func checkFormat(_ gitDirectory: String) throws -> Format {
        let common = commonDirectory(of: gitDirectory)
        let hasCommon = environment["GIT_COMMON_DIR"] != nil || FileSystem.exists(gitDirectory + "/commondir")
        guard let bytes = try? ConfigFiles.read(common + "/config") else { return Format() }
        let parsed = ConfigParser.parse(bytes, origin: .file(common + "/config"))
        var version = -1
        var unknown: [String] = []
        var versionOneOnly: [String] = []
        var worktreeConfig = false
        var format = Format()
        for entry in parsed.entries {
            if entry.name == "core.repositoryformatversion" {
                if case .success(let value) = ConfigValue.integer(entry.value ?? "", maximum: Int64(Int32.max)) {
                    version = Int(value)
                }
            } else if entry.name.hasPrefix("extensions.") {
                let name = String(entry.name.dropFirst("extensions.".count))
                switch name {
                case "noop", "preciousobjects", "partialclone": break
                case "worktreeconfig": worktreeConfig = ConfigValue.bool(entry.value) ?? false
                case "noop-v1": versionOneOnly.append(name)
                case "objectformat":
                    // SHA-1 and SHA-256, as git 2.39 knows them (see ``RepositoryFormat``).
                    guard let value = entry.value else {
                        throw RepositoryDiscoveryError(
                            .unsupportedFormat("missing value for 'extensions.objectformat'"))
                    }
                    guard ObjectFormat(value) != nil else {
                        throw RepositoryDiscoveryError(
                            .unsupportedFormat("invalid value for 'extensions.objectformat': '\(value)'"))
                    }
                    versionOneOnly.append(name)
                default: unknown.append(name)
                }
            } else if entry.name == "core.bare" {
                format.bare = ConfigValue.bool(entry.value)
            } else if entry.name == "core.worktree" {
                format.workTree = entry.value
            }
        }
        if version > 1 {
            throw RepositoryDiscoveryError(.unsupportedFormat("Expected git repo version <= 1, found \(version)"))
        }
        if version >= 1 && !unknown.isEmpty {
            let head =
                unknown.count == 1 ? "unknown repository extension found:" : "unknown repository extensions found:"
            throw RepositoryDiscoveryError(.unsupportedFormat(head + unknown.map { "\n\t\($0)" }.joined()))
        }
        if version == 0 && !versionOneOnly.isEmpty {
            let head =
                versionOneOnly.count == 1
                ? "repo version is 0, but v1-only extension found:" : "repo version is 0, but v1-only extensions found:"
            throw RepositoryDiscoveryError(.unsupportedFormat(head + versionOneOnly.map { "\n\t\($0)" }.joined()))
        }
        if version < 0 { return Format() }
        if worktreeConfig {
            var fromWorktree = Format()
            if let bytes = try? ConfigFiles.read(gitDirectory + "/config.worktree") {
                for entry in ConfigParser.parse(bytes, origin: .file(gitDirectory + "/config.worktree")).entries {
                    if entry.name == "core.bare" { fromWorktree.bare = ConfigValue.bool(entry.value) }
                    if entry.name == "core.worktree" { fromWorktree.workTree = entry.value }
                }
            }
            return fromWorktree
        }
        return hasCommon ? Format() : format
    }

    // MARK: Ownership

    private mutating func protectedConfig() throws -> GitConfiguration {
        if let protectedConfiguration { return protectedConfiguration }
        let loaded = try GitConfiguration.load(gitDirectory: nil, environment: environment)
        protectedConfiguration = loaded
        return loaded
    }

    /// git's `ensure_valid_ownership`: the `.git` file, the work tree and the git directory
    /// belong to the user, or `safe.directory` names the work tree (the git directory when
    /// bare) or is `*`.
    private mutating func checkOwnership(gitFile: String?, workTree: String?, gitDirectory: String, report: String)
        throws
    {
        let assumeOther = ConfigValue.bool(environment["GIT_TEST_ASSUME_DIFFERENT_OWNER"] ?? "false") ?? false
        if !assumeOther && (gitFile.map(isOwnedByUser) ?? true) && (workTree.map(isOwnedByUser) ?? true)
            && isOwnedByUser(gitDirectory)
        {
            return
        }
        let path = workTree ?? gitDirectory
        var safe = false
        for entry in try protectedConfig().entries(named: "safe.directory") {
            guard let value = entry.value, !value.isEmpty else {
                safe = false
                continue
            }
            if value == "*" {
                safe = true
            } else if let expanded = try? protectedConfig().expandedPath(value), expanded == path {
                safe = true
            }
        }
        if !safe { throw RepositoryDiscoveryError(.dubiousOwnership(report)) }
    }

    /// git's `is_path_owned_by_current_uid`: `lstat`'s owner is the effective user; for root, a
    /// path root does not own may belong to the user `SUDO_UID` names.
    private func isOwnedByUser(_ path: String) -> Bool {
        guard let status = FileSystem.status(path, followingLinks: false) else { return false }
        var user = FileSystem.effectiveUserID
        if user == 0 {
            if status.userID == 0 { return true }
            if let sudo = environment["SUDO_UID"], !sudo.isEmpty, let id = UInt32(sudo) { user = id }
        }
        return status.userID == user
    }

    /// git's `sq_quote_buf_pretty`: as it is when it holds only letters, digits and `+,-./:=@_^`,
    /// otherwise in single quotes (`'` and `!` quoted as the shell needs).
    static func prettyQuoted(_ text: String) -> String {
        if text.isEmpty { return "''" }
        let safe = Set("+,-./:=@_^".utf8)
        if text.utf8.allSatisfy({ GitCType.isAlnum($0) || safe.contains($0) }) { return text }
        var quoted = "'"
        for character in text.unicodeScalars {
            switch character {
            case "'": quoted += "'\\''"
            case "!": quoted += "'\\!'"
            default: quoted.unicodeScalars.append(character)
            }
        }
        return quoted + "'"
    }
}
