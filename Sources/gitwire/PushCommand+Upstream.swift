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
        let rebasing = try BranchUpstream.rebasing(configuration)
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
            guard
                try BranchUpstream.install(branch: branch, remote: remote, merge: merge, file: file, rebasing: rebasing)
            else { continue }
            if !quiet {
                try Console.writeOutput(
                    "branch '\(branch)' set up to track '\(remote)/\(short)'\(rebasing ? " by rebasing" : "").\n")
            }
        }
    }
}
