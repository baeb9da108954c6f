import GitWire

/// `gitwire push -u`/`--set-upstream` (and `push.autoSetupRemote`): after the push, each branch
/// pushed to a branch gets `branch.<name>.remote` and `branch.<name>.merge`, written into the
/// repository's configuration file in place as git's `install_branch_config` writes them.
extension PushCommand {
    /// git's `set_upstreams`: for each ref pushed or up to date (not deleted) whose local side is
    /// a branch (`HEAD` followed to its branch) and whose remote side is a branch, the upstream
    /// set, with git's message on standard output (none with `-q`); with `--dry-run` only git's
    /// "Would set upstream" line.
    static func setUpstreams(
        _ result: PushResult, remote: String, refs: RefStore,
        configuration: GitConfiguration, dryRun: Bool, quiet: Bool
    ) throws {
        let autoRebase = try configuration.string("branch.autosetuprebase")
        let rebasing = autoRebase == "always" || autoRebase == "remote"
        for ref in result.refs where ref.status == .ok || ref.status == .upToDate {
            guard ref.new != nil, var local = ref.source else { continue }
            if local == "HEAD", case .symbolic(let target)? = try? refs.head(), target.hasPrefix("refs/heads/") {
                local = target
            }
            guard local.hasPrefix("refs/heads/"), ref.destination.hasPrefix("refs/heads/") else { continue }
            let branch = String(local.dropFirst("refs/heads/".count))
            let merge = ref.destination
            let short = String(merge.dropFirst("refs/heads/".count))
            if dryRun {
                if !quiet {
                    try Console.writeOutput("Would set upstream of '\(branch)' to '\(short)' of '\(remote)'\n")
                }
                continue
            }
            let file = "\(refs.commonDirectory)/config"
            do {
                let warnings = try ConfigFileEdit.edit(file) { editor in
                    try editor.set("branch.\(branch).remote", to: remote, file: file)
                    // git unsets every merge value, then adds this one (an unset of several
                    // values sets nothing: git then adds one more).
                    try editor.set("branch.\(branch).merge", to: nil, file: file)
                    try editor.add("branch.\(branch).merge", value: merge, file: file)
                    if rebasing { try editor.set("branch.\(branch).rebase", to: "true", file: file) }
                }
                for warning in warnings { Console.writeError("warning: \(warning)\n") }
            } catch is ConfigFileEdit.LockedError {
                Console.writeError(
                    """
                    error: could not lock config file \(displayedConfigPath(file)): File exists
                    error: unable to write upstream branch configuration
                    hint: \n\
                    hint: After fixing the error cause you may try to fix up
                    hint: the remote tracking information by invoking:
                    hint:   git branch --set-upstream-to=\(remote)/\(merge)

                    """)
                continue
            }
            if !quiet {
                try Console.writeOutput(
                    "branch '\(branch)' set up to track '\(remote)/\(short)'\(rebasing ? " by rebasing" : "").\n")
            }
        }
    }

    /// The configuration file as git names it in its messages: `.git/config` in a work tree git
    /// found by itself (it works from the top of the work tree, with `.git` as its directory),
    /// the path otherwise.
    static func displayedConfigPath(_ file: String) -> String {
        guard Environment.value("GIT_DIR") == nil, let location = try? RepositoryLocation.discover(),
            let workTree = location.workTree, file == "\(workTree)/.git/config"
        else { return file }
        return ".git/config"
    }
}
