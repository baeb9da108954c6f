import GitWire

/// What `gitwire push` does about what git's push runs or signs on the local side: the
/// `pre-push` hook (run as git runs it, unless `--no-verify`), `--signed` (refused: gitwire
/// makes no push certificates) and `--recurse-submodules` (only `no`).
extension PushCommand {
    /// git's `find_hook("pre-push")`: `core.hooksPath`, else `hooks/` of the common directory.
    /// The path of an executable hook to run, nil when there is none or `verify` is off; one
    /// that is not executable gets git's hint (`advice.ignoredHook`) and is ignored, as git
    /// ignores it.
    static func prePushHook(
        _ configuration: GitConfiguration, commonDirectory: String, verify: Bool
    ) throws -> (path: String, shown: String)? {
        var path = "\(commonDirectory)/hooks/pre-push"
        var shown = BranchUpstream.displayedConfigPath("\(commonDirectory)/config")
        shown = shown.hasSuffix("/config") ? String(shown.dropLast("config".count)) + "hooks/pre-push" : path
        if let hooks = try configuration.path("core.hookspath") {
            shown = "\(hooks)/pre-push"
            path = hooks.hasPrefix("/") ? shown : "\(CommandConfiguration.workTreeTopAbove() ?? ".")/\(shown)"
        }
        guard verify, FileSystem.exists(path), !FileSystem.isDirectory(path) else { return nil }
        guard FileSystem.isExecutable(path) else {
            if try configuration.bool("advice.ignoredhook") ?? true {
                Console.writeError(
                    """
                    hint: The '\(shown)' hook was ignored because it's not set as executable.
                    hint: You can disable this warning with `git config advice.ignoredHook false`.

                    """)
            }
            return nil
        }
        return (path, shown)
    }

    /// The push's check that runs the `pre-push` hook at `path` as git's `run_pre_push_hook`
    /// runs it: arguments the remote's name (the URL when a URL was named) and its URL, both
    /// without a password; one line per ref listed on its standard input
    /// (`<local ref> <local id> <remote ref> <remote id>`, `(delete)` and zeros for a
    /// deletion); its output on gitwire's; in git's working directory and with the variables
    /// git sets (see ``hookPlace(_:)``). A non-zero exit ends the push with nothing sent.
    /// A hook that cannot be started fails the push as a failing one does, after
    /// `error: cannot run <hook>: <reason>` (git 2.39 says so too, and then hangs).
    static func prePushCheck(
        _ hook: (path: String, shown: String), remote: String, url: String, format: ObjectFormat,
        configuration: GitConfiguration
    ) -> PrePushCheck {
        let arguments = [hook.path, withoutPassword(remote), withoutPassword(url)]
        let place = hookPlace(configuration)
        let zero = ObjectID.zero(format).hex
        return PrePushCheck { updates in
            var input: [UInt8] = []
            for update in updates {
                input += Array(
                    "\(update.source ?? "(delete)") \(update.new?.hex ?? zero) \(update.destination) \(update.old?.hex ?? zero)\n"
                        .utf8)
            }
            let status: Int32
            do {
                status = try ChildProcess.runHook(
                    arguments, input: input, directory: place.directory, environment: place.environment)
            } catch let error as SystemCallError {
                Console.writeError("error: cannot run \(hook.shown): \(error.errno)\n")
                throw PrePushHookFailure()
            }
            guard status == 0 else { throw PrePushHookFailure() }
        }
    }

    /// Where git runs a hook from and what it adds to its environment, as git's
    /// `setup_git_directory` leaves them: at the top of the work tree with `GIT_PREFIX` the way
    /// down from it (`sub/`); in a bare repository where the command runs, with `GIT_DIR` (`.` at
    /// its top) and `GIT_IMPLICIT_WORK_TREE=0`. With `GIT_DIR`, `GIT_WORK_TREE` or
    /// `core.worktree` set (git's `setup_explicit_git_dir`): at the top of the work tree when the
    /// command runs below it, `GIT_DIR` then the git directory's real path; where the command
    /// runs otherwise, `GIT_DIR` as given (a discovered one: `.git` here, the real path above).
    /// And as git's `setup_path`: `GIT_EXEC_PATH` (git's, see ``gitExecPath()``) and `PATH`
    /// with it in front.
    static func hookPlace(_ configuration: GitConfiguration) -> (directory: String?, environment: [String: String?]) {
        var place = repositoryPlace(configuration)
        if let exec = gitExecPath() {
            place.environment["GIT_EXEC_PATH"] = exec
            place.environment["PATH"] = exec + ":" + (Environment.value("PATH") ?? "/usr/bin:/bin")
        }
        return place
    }

    /// ``hookPlace(_:)`` but for `GIT_EXEC_PATH` and `PATH`.
    private static func repositoryPlace(_ configuration: GitConfiguration) -> (
        directory: String?, environment: [String: String?]
    ) {
        guard let here = try? FileSystem.currentDirectory(), let location = try? RepositoryLocation.discover()
        else { return (nil, ["GIT_PREFIX": ""]) }
        let given = Environment.value("GIT_DIR").flatMap { $0.isEmpty ? nil : $0 }
        let explicit =
            given != nil || Environment.value("GIT_WORK_TREE") != nil
            || (try? configuration.last("core.worktree")) != nil
        if explicit, !location.isBare || given != nil {
            // git's `setup_explicit_git_dir`: the `GIT_DIR` it starts from (a `.git` file's
            // target; a discovered `.git` here as `.git`, one above by its real path).
            let start: String
            if let given {
                start = location.gitFile == nil ? given : location.gitDirectory
            } else if location.gitFile == nil, location.gitDirectory == here + "/.git" {
                start = ".git"
            } else {
                start = ConfigFiles.realPath(location.gitDirectory) ?? location.gitDirectory
            }
            guard let tree = location.workTree else { return (nil, ["GIT_DIR": start, "GIT_PREFIX": ""]) }
            let top = ConfigFiles.realPath(tree) ?? tree
            if here != top, here.hasPrefix(top == "/" ? "/" : top + "/") {
                let prefix = String(here.dropFirst(top == "/" ? 1 : top.count + 1)) + "/"
                let real = ConfigFiles.realPath(location.gitDirectory) ?? location.gitDirectory
                return (top, ["GIT_DIR": real, "GIT_PREFIX": prefix])
            }
            return (nil, ["GIT_DIR": start, "GIT_PREFIX": ""])
        }
        if let top = location.workTree, here == top || here.hasPrefix(top + "/"),
            here != location.gitDirectory, !here.hasPrefix(location.gitDirectory + "/")
        {
            let prefix = here == top ? "" : String(here.dropFirst(top.count + 1)) + "/"
            return (top, ["GIT_PREFIX": prefix])
        }
        let atTop = here == location.gitDirectory
        return (
            nil,
            [
                "GIT_DIR": atTop ? "." : location.gitDirectory, "GIT_IMPLICIT_WORK_TREE": "0", "GIT_PREFIX": "",
            ]
        )
    }

    /// git's exec path, which git gives its hooks as `GIT_EXEC_PATH` (its `setup_path`):
    /// `GIT_EXEC_PATH` when set, else what the `git` on `PATH` says it is (`git --exec-path`);
    /// nil when neither (gitwire then sets none: it has no exec path of its own).
    static func gitExecPath() -> String? {
        if let set = Environment.value("GIT_EXEC_PATH"), !set.isEmpty { return set }
        guard let output = try? ChildProcess.run(["git", "--exec-path"], input: []), output.status == 0 else {
            return nil
        }
        var bytes = output.standardOutput[...]
        while bytes.last == UInt8(ascii: "\n") { bytes = bytes.dropLast() }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }

    /// `url` without the password of its `user:password@` (the user stays): a credential goes
    /// nowhere else, not even to a hook (git passes the URL as given).
    static func withoutPassword(_ url: String) -> String {
        let bytes = Array(url.utf8)
        guard
            let separator = (0..<max(0, bytes.count - 2)).first(where: {
                bytes[$0..<($0 + 3)].elementsEqual("://".utf8)
            })
        else { return url }
        let start = separator + 3
        let end = bytes[start...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.count
        guard let at = bytes[start..<end].lastIndex(of: UInt8(ascii: "@")),
            let colon = bytes[start..<at].firstIndex(of: UInt8(ascii: ":"))
        else { return url }
        return String(decoding: bytes[..<colon] + bytes[at...], as: UTF8.self)
    }
}

/// A `pre-push` hook that exited with a failure: git's push then fails with nothing sent.
struct PrePushHookFailure: Error {}

extension PushCommand {
    /// `--signed[=<mode>]` as git reads it: false/no/off (or `--no-signed`) signs nothing; any
    /// other mode is refused, since gitwire makes no push certificates (git's `if-asked` signs
    /// when the server asks, and `true` fails without a server that takes them).
    static func checkSigned(_ mode: String?) throws {
        guard let mode else { return }
        switch mode.lowercased() {
        case "false", "no", "off", "0": return
        case "true", "yes", "on", "1", "", "if-asked":
            throw ReportedFailure(
                text: Array("fatal: --signed is not supported by gitwire: it makes no push certificates\n".utf8))
        default:
            throw ReportedFailure(text: Array("fatal: bad signed argument: \(mode)\n".utf8))
        }
    }

    /// `--recurse-submodules=<mode>`: only `no` (git's default); `check`, `on-demand` and `only`
    /// are refused, since gitwire does not look into submodules.
    static func checkRecurseSubmodules(_ mode: String?) throws {
        guard let mode, mode != "no" else { return }
        switch mode {
        case "check", "on-demand", "only":
            throw ReportedFailure(
                text: Array(
                    "fatal: --recurse-submodules=\(mode) is not supported by gitwire: it does not push submodules\n"
                        .utf8))
        default:
            throw ReportedFailure(text: Array("fatal: bad recurse-submodules argument: \(mode)\n".utf8))
        }
    }
}
