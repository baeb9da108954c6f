import GitWire

/// Where and what `gitwire push` pushes when the command line does not say: git's configuration
/// (`remote.<name>.receivepack`, the push remote, upstreams, `push.default`).
extension PushCommand {
    /// `remote.<name>.receivepack` when pushing to a configured remote.
    static func configuredReceivePack(_ configuration: GitConfiguration, remote: String) throws -> String? {
        guard !remote.contains("/") && !remote.contains(":") else { return nil }
        return try configuration.string("remote.\(remote).receivepack")
    }

    /// `url` as git's push reaches it: git runs from the top of the work tree it was started
    /// in, so a relative path (`.`, the remote `branch.<name>.remote = .` names, or
    /// `../other.git`) is found from there, not from a subdirectory; from a bare repository, or
    /// with `GIT_DIR` set, from where it was started. Other URLs are unchanged.
    static func fromTopOfWorkTree(_ url: String) -> String {
        guard CommandConfiguration.isRelativeLocalURL(url), let top = CommandConfiguration.workTreeTopAbove()
        else { return url }
        return "\(top)/\(url)"
    }

    /// The remote a push names none: git's `pushremote_get(NULL)`, that is
    /// `branch.<name>.pushRemote` of the branch `HEAD` names, else `remote.pushDefault`, else the
    /// remote fetch would use (`branch.<name>.remote`, the only remote, `origin`); when none is
    /// configured and the fallback has no URL, git's "No configured push destination".
    static func defaultDestination(_ configuration: GitConfiguration, gitDirectory: String) throws -> String {
        var currentBranch: String?
        if case .symbolic(let target)? = try? Repository(gitDirectory: gitDirectory).refs.head(),
            target.hasPrefix("refs/heads/")
        {
            currentBranch = String(target.dropFirst("refs/heads/".count))
        }
        // A name configured is used even without a URL (git then takes it for a path).
        var name = try currentBranch.flatMap { try configuration.string("branch.\($0).pushRemote") }
        if name == nil { name = try configuration.string("remote.pushDefault") }
        if name == nil { name = try currentBranch.flatMap { try configuration.string("branch.\($0).remote") } }
        if let name { return name }
        let chosen = try ConfiguredRemote.defaultName(configuration: configuration, currentBranch: currentBranch)
        guard try configuration.remoteURLs(named: chosen) != nil else {
            throw ReportedFailure(
                text: Array(
                    """
                    fatal: No configured push destination.
                    Either specify the URL from the command-line or configure a remote repository using

                        git remote add <name> <url>

                    and then push using the remote name

                        git push <name>


                    """.utf8))
        }
        return chosen
    }

    /// Each branch (full name) with `branch.<name>.remote` set and exactly one
    /// `branch.<name>.merge`, with that merge value (git's `branch->merge[0]->src`).
    static func upstreams(_ configuration: GitConfiguration) throws -> [String: String] {
        var merges: [String: [String]] = [:]
        var remotes: Set<String> = []
        for entry in configuration.entries where entry.name.hasPrefix("branch.") {
            let rest = entry.name.dropFirst("branch.".count)
            if rest.hasSuffix(".merge"), let value = entry.value {
                merges[String(rest.dropLast(".merge".count)), default: []].append(value)
            } else if rest.hasSuffix(".remote"), let value = entry.value, !value.isEmpty {
                remotes.insert(String(rest.dropLast(".remote".count)))
            }
        }
        var upstreams: [String: String] = [:]
        for (branch, values) in merges where values.count == 1 && remotes.contains(branch) {
            upstreams["refs/heads/\(branch)"] = values[0]
        }
        return upstreams
    }

    /// What a push with no refspec pushes: `push.default` as git reads it.
    enum DefaultPush {
        /// Branches of the same name on both sides (`:`).
        case matching
        /// One refspec.
        case refspec(PushRefspec)
    }

    /// git's check of `push.default` as it reads the configuration (`git_default_push_config`):
    /// the first value it does not know ends the command, whatever is pushed, naming where it
    /// was set (`in file '<path>' at line <n>`, or the command line).
    /// The repository's own `config` is named as git names it from where it runs (the top of
    /// the work tree, or a bare repository's directory): `.git/config` or `config` when git
    /// found the repository there itself, else the absolute path.
    static func checkPushDefault(_ configuration: GitConfiguration, gitDirectory: String) throws {
        let known: Set<String> = ["nothing", "matching", "simple", "upstream", "tracking", "current"]
        guard
            var entry = configuration.entries.first(where: {
                $0.name == "push.default" && $0.value.map { !known.contains($0) } ?? false
            })
        else { return }
        if entry.origin?.path == "\(gitDirectory)/config", Environment.value("GIT_DIR") == nil {
            if (try? FileSystem.currentDirectory()) == gitDirectory {
                entry.origin = .file("config")
            } else if gitDirectory.hasSuffix("/.git"), FileSystem.isDirectory(gitDirectory) {
                entry.origin = .file(".git/config")
            }
        }
        let located = ConfigError.badVariable(name: entry.name, origin: entry.origin, line: entry.line, reason: nil)
        throw ReportedFailure(
            text: Array(
                """
                error: malformed value for push.default: \(entry.value ?? "")
                error: must be one of nothing, matching, simple, upstream or current
                fatal: \(located.description)

                """.utf8))
    }

    /// git's `setup_default_push_refspecs`: `push.default` (`simple` when unset), the current
    /// branch and its upstream (`branch.<name>.remote`, `branch.<name>.merge`).
    static func defaultRefspec(
        configuration: GitConfiguration, refs: RefStore, remoteName: String, autoSetupRemote: Bool = false
    ) throws -> DefaultPush {
        let configured = try configuration.string("push.default")
        let mode = configured ?? "simple"
        switch mode {
        case "matching": return .matching
        case "nothing":
            throw ReportedFailure(
                text: Array(
                    "fatal: You didn't specify any refspecs to push, and push.default is \"nothing\".\n".utf8))
        case "simple", "upstream", "tracking", "current": break
        default: break  // refused when the configuration was read (checkPushDefault)
        }
        guard case .symbolic(let target) = try refs.head(), target.hasPrefix("refs/heads/") else {
            throw ReportedFailure(
                text: Array(
                    """
                    fatal: You are not currently on a branch.
                    To push the history leading to the current (detached HEAD)
                    state now, use

                        git push \(remoteName) HEAD:<name-of-remote-branch>


                    """.utf8))
        }
        let branch = String(target.dropFirst("refs/heads/".count))
        let branchRemote = try configuration.string("branch.\(branch).remote")
        let sameRemote = remoteName == (branchRemote ?? "origin")
        func upstream() throws -> String {
            let merges = try configuration.all("branch.\(branch).merge").compactMap { $0 }
            // push.autoSetupRemote: a branch with no upstream pushes to its own name (and gets
            // it as its upstream after the push).
            if merges.isEmpty && autoSetupRemote { return target }
            guard !merges.isEmpty, branchRemote != nil else {
                throw ReportedFailure(
                    text: Array(
                        """
                        fatal: The current branch \(branch) has no upstream branch.
                        To push the current branch and set the remote as upstream, use

                            git push --set-upstream \(remoteName) \(branch)
                        \(autoSetupRemote ? "" : """

                            To have this happen automatically for branches without a tracking
                            upstream, see 'push.autoSetupRemote' in 'git help config'.

                            """)

                        """.utf8))
            }
            guard merges.count == 1 else {
                throw ReportedFailure(
                    text: Array(
                        "fatal: The current branch \(branch) has multiple upstream branches, refusing to push.\n".utf8))
            }
            return merges[0]
        }
        switch mode {
        case "upstream", "tracking":
            guard sameRemote else {
                throw ReportedFailure(
                    text: Array(
                        """
                        fatal: You are pushing to remote '\(remoteName)', which is not the upstream of
                        your current branch '\(branch)', without telling me what to push
                        to update which remote branch.

                        """.utf8))
            }
            return .refspec(PushRefspec(source: target, destination: try upstream()))
        case "simple":
            guard sameRemote else { break }
            let merge = try upstream()
            guard merge == target else {
                let short = merge.hasPrefix("refs/heads/") ? String(merge.dropFirst("refs/heads/".count)) : merge
                throw ReportedFailure(
                    text: Array(
                        """
                        fatal: The upstream branch of your current branch does not match
                        the name of your current branch.  To push to the upstream branch
                        on the remote, use

                            git push \(remoteName) HEAD:\(short)

                        To push to the branch of the same name on the remote, use

                            git push \(remoteName) HEAD
                        \(configured == nil ? "\nTo choose either option permanently, see push.default in 'git help config'.\n" : "")
                        To avoid automatically configuring an upstream branch when its name
                        won't match the local branch, see option 'simple' of branch.autoSetupMerge
                        in 'git help config'.


                        """.utf8))
            }
        default: break
        }
        return .refspec(PushRefspec(source: target, destination: target))
    }
}
