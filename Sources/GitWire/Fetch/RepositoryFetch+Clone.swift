extension RepositoryFetch {
    // MARK: Object format

    /// Whether git 2.39's clone takes the remote's object format: when it maps some ref (the
    /// remote's `HEAD` with a commit, or a ref the refspecs take). An empty remote, or one with
    /// only an unborn `HEAD`, leaves the new repository SHA-1, as `git clone` 2.39 leaves it.
    static func takesRemoteFormat(_ listing: RefListing, refspecs: [Refspec]) -> Bool {
        listing.refs.contains { $0.name == "HEAD" && $0.objectID != nil }
            || !wantedRefs(listing, refspecs: refspecs).isEmpty
    }

    /// Makes a new clone's repository of the remote's object format, as `git clone` does once it
    /// has the refs (`core.repositoryformatversion = 1`, `extensions.objectformat`); nothing
    /// for a fetch, or when the format is already the remote's.
    func adoptRemoteFormat() throws {
        guard isClone, let repository, let format = listedFormat.withLock({ $0 }), format != repository.objectFormat
        else { return }
        try writeCloneConfig(cloneConfigText(filter: nil, format: format), in: repository)
        self.repository = try Repository(gitDirectory: repository.gitDirectory)
    }

    // MARK: Files

    /// The configuration git's clone writes: `core` (bare, or with a work tree and reflogs),
    /// the remote (URL, `tagOpt`, the fetch refspec, mirror and partial-clone settings), and
    /// the branch that tracks the remote's; `extensions.objectformat` for a format other than
    /// SHA-1 (`format`, else the repository's).
    func cloneConfig(
        filter: String?, fetchRefspec: String? = nil, branch: String? = nil, format: ObjectFormat? = nil
    ) -> GitConfig {
        var config = GitConfig([])
        for edit in cloneConfigEdits(filter: filter, fetchRefspec: fetchRefspec, branch: branch, format: format) {
            config.add(edit.section, edit.subsection, edit.key, edit.value)
        }
        return config
    }

    /// One entry git's init and clone write into the new configuration, in order: `set` ones
    /// (git's `git_config_set`: `core`'s) replace an entry of the name where a template's
    /// `config` has one; the others are added as `git config --add` adds them.
    struct CloneConfigEdit {
        var set: Bool
        var section: String
        var subsection: String?
        var key: String
        var value: String
    }

    /// The entries of ``cloneConfig(filter:fetchRefspec:branch:format:)``, in the order git
    /// writes them.
    func cloneConfigEdits(
        filter: String?, fetchRefspec: String? = nil, branch: String? = nil, format: ObjectFormat? = nil
    ) -> [CloneConfigEdit] {
        let format = format ?? repository?.objectFormat ?? .sha1
        let bare = options.bare || options.mirror
        var core: [(key: String, value: String)] = [
            ("repositoryformatversion", filter != nil || format != .sha1 ? "1" : "0"), ("filemode", "true"),
            ("bare", bare ? "true" : "false"),
        ]
        // git's init leaves out `logallrefupdates` when the template's configuration sets it.
        if !bare && !templateSetsLogAllRefUpdates { core.append(("logallrefupdates", "true")) }
        var edits = core.map { CloneConfigEdit(set: true, section: "core", key: $0.key, value: $0.value) }
        func add(_ section: String, _ subsection: String?, _ key: String, _ value: String) {
            edits.append(CloneConfigEdit(set: false, section: section, subsection: subsection, key: key, value: value))
        }
        // git's clone: `init`'s core, then the `-c` entries, then the remote's entries and the
        // rest, each added where `git config --add` adds it.
        for entry in options.cloneConfiguration {
            add(String(entry.section), entry.subsection.map(String.init), String(entry.key), entry.value ?? "true")
        }
        var origin: [(key: String, value: String)] = [("url", options.configuredURL ?? remoteURL.text)]
        if options.tags == FetchTags.none { origin.append(("tagOpt", "--no-tags")) }
        if options.mirror {
            origin += [("fetch", "+refs/*:refs/*"), ("mirror", "true")]
        } else if let fetchRefspec {
            origin.append(("fetch", fetchRefspec))
        }
        if let filter { origin += [("promisor", "true"), ("partialclonefilter", filter)] }
        for (key, value) in origin { add("remote", options.originName, key, value) }
        // git's clone adds the format once it knows the remote's, then the tracking branch.
        if format != .sha1 { add("extensions", nil, "objectformat", format.name) }
        if let branch {
            add("branch", branch, "remote", options.originName)
            add("branch", branch, "merge", "refs/heads/\(branch)")
        }
        return edits
    }

    /// Whether the template's `config` sets `core.logAllRefUpdates`.
    private var templateSetsLogAllRefUpdates: Bool {
        guard let templateConfig else { return false }
        return ConfigParser.parse(templateConfig).entries.contains { $0.name == "core.logallrefupdates" }
    }

    /// The bytes of the configuration `config` stands for: its text, or, when the clone's
    /// template has a `config`, that file with the clone's entries set and added in place, as
    /// git's `git_config_set` edits the copy init made of it.
    func cloneConfigText(
        filter: String?, fetchRefspec: String? = nil, branch: String? = nil, format: ObjectFormat? = nil
    ) throws -> [UInt8] {
        guard let templateConfig else {
            return cloneConfig(filter: filter, fetchRefspec: fetchRefspec, branch: branch, format: format).text
        }
        var editor = ConfigEditor(templateConfig)
        for edit in cloneConfigEdits(filter: filter, fetchRefspec: fetchRefspec, branch: branch, format: format) {
            let name = [edit.section] + (edit.subsection.map { [$0] } ?? []) + [edit.key]
            if edit.set {
                try editor.set(name.joined(separator: "."), to: edit.value)
            } else {
                try editor.add(name.joined(separator: "."), value: edit.value)
            }
        }
        return editor.text
    }

    func writeCloneConfig(_ text: [UInt8], in repository: Repository) throws {
        try FileSystem.writeAtomically(
            text[...], to: "\(repository.gitDirectory)/config", permissions: 0o666, temporaryPrefix: ".config-")
    }

    /// The message of the reflog entries a clone writes (`clone: from <url>`, without
    /// credentials).
    var cloneReflogMessage: String {
        "clone: from \(RemoteURL.withoutCredentials(options.configuredURL ?? remoteURL.text))"
    }

    /// The `HEAD` reflog entry git's bare clone writes (its `update_head`) when
    /// `core.logAllRefUpdates` logs `HEAD` (`true` or `always`, from `-c`, the template's or the
    /// user's configuration): for `HEAD` made to name a branch that exists, a line without a
    /// message (`create_symref`); for a detached `HEAD`, a line with `message`. Either starts from
    /// the commit of the branch git's init pointed `HEAD` at (`init.defaultBranch`, else
    /// `master`), now one of the clone's refs, or the zero id. `new` nil: nothing written.
    func logBareCloneHead(new: ObjectID?, message: String, in repository: Repository) throws {
        guard let new else { return }
        let configuration = try GitConfiguration.load(gitDirectory: repository.gitDirectory)
        let initial = ((try? configuration.string("init.defaultBranch")) ?? nil) ?? "master"
        let old = try? repository.refs.resolve("refs/heads/\(initial)")
        let reflog = Reflog(
            gitDirectory: repository.gitDirectory, commonDirectory: repository.commonDirectory,
            policy: Reflog.policy(configuration, bare: true),
            identity: Reflog.committerIdentity(configuration, environment: Environment.all()))
        try reflog.append("HEAD", old: old, new: new, message: message)
    }

    /// What git's clone does after the refs are written, for a repository with a work tree
    /// (`update_remote_refs`, `update_head`, `write_refspec_config`): `refs/remotes/<origin>/HEAD`
    /// names the remote's `HEAD` branch; `HEAD` names the local branch made from it (or from
    /// `--branch`), which tracks it, or is detached at a tag or at the remote's detached `HEAD`;
    /// an empty repository's `HEAD` names its unborn branch. Reflogs as git writes them.
    func completeWorkTreeClone(
        _ listing: RefListing, mapped: [(remote: String, local: String, id: ObjectID)], in repository: Repository,
        peeler: inout TagPeeler
    ) throws -> HeadState {
        let configuration = try GitConfiguration.load(gitDirectory: repository.gitDirectory)
        let reflog = Reflog(
            gitDirectory: repository.gitDirectory, commonDirectory: repository.commonDirectory,
            policy: Reflog.policy(configuration, bare: false),
            identity: Reflog.committerIdentity(configuration, environment: Environment.all()))
        let message = cloneReflogMessage
        let defaultBranch = (try? configuration.string("init.defaultBranch")) ?? nil
        let remoteHead = listing.refs.first { $0.name == "HEAD" }
        // git's guess_remote_head: the ref HEAD names, else a branch at HEAD's commit.
        var remoteHeadPointsAt: (remote: String, local: String, id: ObjectID)?
        if let remoteHead, remoteHead.objectID != nil {
            var target = remoteHead.symrefTarget
            if listing.protocolVersion != .v2, let name = target,
                !RefNameFormat.isValid(Array(name.utf8), allowOneLevel: true)
            {
                target = nil
            }
            if let target {
                remoteHeadPointsAt = mapped.first { $0.remote == target }
            } else {
                let preferred = "refs/heads/\(defaultBranch ?? "master")"
                remoteHeadPointsAt =
                    mapped.first { $0.remote == preferred && $0.id == remoteHead.objectID }
                    ?? mapped.first { $0.remote.hasPrefix("refs/heads/") && $0.id == remoteHead.objectID }
            }
        }
        var ours = remoteHeadPointsAt
        if let branch = options.branch {
            ours =
                mapped.first { $0.remote == "refs/heads/\(branch)" }
                ?? mapped.first { $0.remote == "refs/tags/\(branch)" }
            if ours == nil {
                throw FetchRefMapError("Remote branch \(branch) not found in upstream \(options.originName)")
            }
        }
        // The fetch refspec: one branch for --single-branch, else all of them.
        var fetchRefspec: String? = "+refs/heads/*:refs/remotes/\(options.originName)/*"
        if singleBranch {
            fetchRefspec = nil
            if let branch = options.branch, let ours {
                fetchRefspec =
                    ours.remote.hasPrefix("refs/tags/")
                    ? "+\(ours.remote):\(ours.remote)" : "+\(ours.remote):refs/remotes/\(options.originName)/\(branch)"
            } else if let remoteHeadPointsAt, remoteHeadPointsAt.remote.hasPrefix("refs/heads/") {
                let short = remoteHeadPointsAt.remote.dropFirst("refs/heads/".count)
                fetchRefspec = "+\(remoteHeadPointsAt.remote):refs/remotes/\(options.originName)/\(short)"
            }
        }
        if let remoteHeadPointsAt {
            let name = "refs/remotes/\(options.originName)/HEAD"
            try repository.refs.setSymbolicRef(name, to: remoteHeadPointsAt.local)
            try reflog.append(name, old: nil, new: remoteHeadPointsAt.id, message: message)
        }
        var trackedBranch: String?
        let head: HeadState
        if let ours, ours.remote.hasPrefix("refs/heads/") {
            let local = ours.remote
            try repository.refs.setSymbolicRef(to: local)
            // A branch names a commit: a server whose branch names anything else fails the
            // clone, as git's does (`trying to write non-commit object … to branch …`).
            let objects = repository.objects
            try repository.refs.apply(
                [RefUpdate(name: local, newID: ours.id, logMessage: message)], atomic: true,
                objectType: { try? objects.objectType($0) }, reflog: reflog)
            trackedBranch = String(local.dropFirst("refs/heads/".count))
            head = .symbolic(local)
        } else if let ours {
            let commit = peeler.commit(ours.id) ?? ours.id
            try Self.checkDetachedHead(commit, in: repository.objects)
            try repository.refs.setDetachedHead(commit)
            try reflog.append("HEAD", old: nil, new: commit, message: message)
            head = .detached(commit)
        } else if let remoteHead, let id = remoteHead.objectID {
            try Self.checkDetachedHead(id, in: repository.objects)
            try repository.refs.setDetachedHead(id)
            try reflog.append("HEAD", old: nil, new: id, message: message)
            head = .detached(id)
        } else {
            // An empty repository: the branch its unborn HEAD names, else the default.
            var unborn = "refs/heads/\(defaultBranch ?? "master")"
            if let target = remoteHead?.symrefTarget, target.hasPrefix("refs/heads/"),
                (try? RefStore.checkName(target)) != nil
            {
                unborn = target
            }
            try repository.refs.setSymbolicRef(to: unborn)
            trackedBranch = String(unborn.dropFirst("refs/heads/".count))
            head = .symbolic(unborn)
        }
        try writeCloneConfig(
            cloneConfigText(filter: options.fetch.filter, fetchRefspec: fetchRefspec, branch: trackedBranch),
            in: repository)
        return head
    }

    /// A clone detaches `HEAD` only at a commit: git's refuses anything else (`cannot update ref
    /// 'HEAD': trying to write non-commit object … to branch 'HEAD'`, or, for a `--branch` tag
    /// that peels to no commit, a crash), and a `HEAD` at a blob or tree leaves a repository git
    /// cannot use. git's clone sets it with `update_ref`, which dies with `update_ref failed for
    /// ref 'HEAD': ` first. The type comes from the object's header: a large blob is not read.
    static func checkDetachedHead(_ id: ObjectID, in objects: ObjectDatabase) throws {
        guard let type = try? objects.objectType(id) else {
            throw UpdateRefFailure(error: RefUpdateError(name: "HEAD", reason: .missingObject(id)))
        }
        guard type == .commit else {
            throw UpdateRefFailure(error: RefUpdateError(name: "HEAD", reason: .nonCommitToBranch(id)))
        }
    }

    func readShallow(_ repository: Repository) throws -> Set<ObjectID> {
        let path = "\(repository.commonDirectory)/shallow"
        guard FileSystem.exists(path) else { return [] }
        var ids = Set<ObjectID>()
        for line in try FileSystem.read(path).split(separator: 0x0a) {
            guard let id = ObjectID(hex: line, format: repository.objectFormat) else {
                throw RepositoryError.corrupt(path, String(decoding: line, as: UTF8.self))
            }
            ids.insert(id)
        }
        return ids
    }

    func writeShallow(_ shallow: Set<ObjectID>, in repository: Repository) throws {
        let path = "\(repository.commonDirectory)/shallow"
        if shallow.isEmpty {
            try FileSystem.remove(path)
            return
        }
        var text: [UInt8] = []
        for id in shallow.sorted() {
            id.appendHex(to: &text)
            text.append(0x0a)
        }
        let lock = try RefLock(path, content: text)
        try lock.commit()
    }
}
