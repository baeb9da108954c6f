import GitWire

/// What `gitwire push` does about what git's push runs or signs on the local side: the
/// `pre-push` hook (not run: a push that would run one is refused, unless `--no-verify`),
/// `--signed` (refused: gitwire makes no push certificates) and `--recurse-submodules` (only
/// `no`).
extension PushCommand {
    /// git's `find_hook("pre-push")`: `core.hooksPath`, else `hooks/` of the common directory.
    /// An executable hook refuses the push unless `verify` is off (git would run it, and a hook
    /// silently skipped is a check the user counted on that did not happen); one that is not
    /// executable gets git's hint (`advice.ignoredHook`) and is ignored, as git ignores it.
    static func checkPrePushHook(
        _ configuration: GitConfiguration, commonDirectory: String, verify: Bool
    ) throws {
        var path = "\(commonDirectory)/hooks/pre-push"
        var shown = BranchUpstream.displayedConfigPath("\(commonDirectory)/config")
        shown = shown.hasSuffix("/config") ? String(shown.dropLast("config".count)) + "hooks/pre-push" : path
        if let hooks = try configuration.path("core.hookspath") {
            shown = "\(hooks)/pre-push"
            path = hooks.hasPrefix("/") ? shown : "\(CommandConfiguration.workTreeTopAbove() ?? ".")/\(shown)"
        }
        guard verify, FileSystem.exists(path), !FileSystem.isDirectory(path) else { return }
        guard FileSystem.isExecutable(path) else {
            if try configuration.bool("advice.ignoredhook") ?? true {
                Console.writeError(
                    """
                    hint: The '\(shown)' hook was ignored because it's not set as executable.
                    hint: You can disable this warning with `git config advice.ignoredHook false`.

                    """)
            }
            return
        }
        throw ReportedFailure(
            text: Array(
                """
                fatal: gitwire does not run the pre-push hook '\(shown)', which git would run before \
                this push; push with --no-verify to skip it, or with git

                """.utf8))
    }

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
