import GitWire

/// git's `install_branch_config`, shared by `push -u` and `fetch --set-upstream`: writes
/// `branch.<name>.remote` and `branch.<name>.merge` (and `rebase` under
/// `branch.autoSetupRebase`) into the repository's configuration file in place.
enum BranchUpstream {
    /// Whether git sets `branch.<name>.rebase` for an upstream on a remote
    /// (`branch.autoSetupRebase` `always` or `remote`).
    static func rebasing(_ configuration: GitConfiguration) throws -> Bool {
        let autoRebase = try configuration.string("branch.autosetuprebase")
        return autoRebase == "always" || autoRebase == "remote"
    }

    /// Makes `merge` of `remote` the upstream of `branch` in the configuration file `file`, as
    /// git writes it (every `merge` value unset, then this one added). Returns false when the
    /// file is locked, after git's errors and hints.
    static func install(branch: String, remote: String, merge: String, file: String, rebasing: Bool) throws -> Bool {
        do {
            let warnings = try ConfigFileEdit.edit(file) { editor in
                try editor.set("branch.\(branch).remote", to: remote, file: file)
                // git unsets every merge value, then adds this one (an unset of several values
                // sets nothing: git then adds one more).
                try editor.set("branch.\(branch).merge", to: nil, file: file)
                try editor.add("branch.\(branch).merge", value: merge, file: file)
                if rebasing { try editor.set("branch.\(branch).rebase", to: "true", file: file) }
            }
            for warning in warnings { Console.writeError("warning: \(warning)\n") }
            return true
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
            return false
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

extension FetchCommand {
    /// git's `fetch --set-upstream` after a fetch that updated every ref: the one remote ref
    /// fetched for `FETCH_HEAD` only becomes the upstream of the branch `HEAD` names, silently;
    /// warnings (and nothing set) for several such refs, none, a detached `HEAD`, or a ref that
    /// is no branch.
    static func setUpstream(
        _ result: FetchResult, remote: String, location: RepositoryLocation, configuration: GitConfiguration
    ) throws {
        let sources = result.refsWithoutLocalRef
        guard sources.count < 2 else {
            Console.writeError("warning: multiple branches detected, incompatible with --set-upstream\n")
            return
        }
        guard let source = sources.first else {
            Console.writeError(
                "warning: no source branch found;\n"
                    + "you need to specify exactly one branch with the --set-upstream option\n")
            return
        }
        let refs = try RefStore(gitDirectory: location.gitDirectory, commonDirectory: location.commonDirectory)
        guard case .symbolic(let target)? = try? refs.head(), target.hasPrefix("refs/heads/") else {
            let short = source.hasPrefix("refs/heads/") ? String(source.dropFirst("refs/heads/".count)) : source
            Console.writeError(
                "warning: could not set upstream of HEAD to '\(short)' from '\(remote)' when it does not point"
                    + " to any branch.\n")
            return
        }
        if source == "HEAD" || source.hasPrefix("refs/heads/") {
            _ = try BranchUpstream.install(
                branch: String(target.dropFirst("refs/heads/".count)), remote: remote, merge: source,
                file: "\(location.commonDirectory)/config", rebasing: try BranchUpstream.rebasing(configuration))
        } else if source.hasPrefix("refs/remotes/") {
            Console.writeError("warning: not setting upstream for a remote remote-tracking branch\n")
        } else if source.hasPrefix("refs/tags/") {
            Console.writeError("warning: not setting upstream for a remote tag\n")
        } else {
            Console.writeError("warning: unknown branch type\n")
        }
    }
}
