extension RepositoryFetch {
    // MARK: After the exchange

    /// Completes the pack, checks connectivity and updates the refs. The slow part (delta
    /// resolution) runs here: call it off the run loop's thread.
    func complete(_ outcome: FetchOutcome) throws -> FetchResult {
        if isClone && Self.takesRemoteFormat(outcome.listing, refspecs: cloneSpecs) {
            try adoptRemoteFormat()
        }
        let repository = repository!
        if isClone {
            // git's clone indexes its pack in a process of its own (`index-pack`), which reads
            // `core.sharedRepository` from the new configuration (with `clone -c`'s entries);
            // the clone itself, writing the refs, keeps the one it started with.
            (try? GitConfiguration.load(gitDirectory: repository.gitDirectory))?.useSharedRepository()
        }
        defer { if isClone { FileSystem.useSharedRepository(cloneSharedRepository) } }
        // What git dies of before it fetches (a refspec that matches nothing, a checked-out
        // branch): nothing was asked for, nothing is stored.
        let fetchEntries = try update?.entries().entries
        // What the server said about history, checked against the request: `shallow` lines
        // answer a request that deepens (v2: or that the server answered with `unshallow`
        // lines); otherwise they say where the server's own repository is shallow (git's
        // `receive_shallow_info` and `prepare_shallow_info`).
        var negotiatedShallow: [ObjectID] = []
        for id in shallowAdded + outcome.shallow where !negotiatedShallow.contains(id) { negotiatedShallow.append(id) }
        let unshallowed = Set(shallowRemoved + outcome.unshallow)
        let deepening = options.fetch.deepens || !unshallowed.isEmpty
        var remoteShallow = outcome.listing.shallow
        if !deepening { remoteShallow += negotiatedShallow }
        var objectsBefore: ObjectDatabase?
        var hadBefore: Set<ObjectID> = []
        if !isClone && !remoteShallow.isEmpty {
            objectsBefore = try ObjectDatabase(gitDirectory: repository.commonDirectory)
            hadBefore = Set(remoteShallow.filter { repository.objects.contains($0) })
        }
        // The objects the repository has before the pack (alternates and thin-pack bases
        // included): the connectivity check takes their types as they are.
        let objectsBeforePack = try repository.objects.reopened()
        if let indexer {
            indexed = try indexer.finish(externalBases: repository.objects)
            self.indexer = nil
            if options.fetch.filter != nil, let indexed {
                // As git's index-pack --promisor: the refs the pack was fetched for.
                let wantedNames = Set(
                    fetchEntries?.map(\.remoteName)
                        ?? Self.wantedRefs(
                            outcome.listing, refspecs: cloneSpecs, singleBranch: singleBranch, branch: options.branch
                        )
                        .map(\.remote))
                var lines: [UInt8] = []
                for ref in outcome.listing.refs where ref.name == "HEAD" || wantedNames.contains(ref.name) {
                    guard let id = ref.objectID else { continue }
                    id.appendHex(to: &lines)
                    lines += Array(" \(ref.name)\n".utf8)
                }
                let promisor = String(indexed.packPath.dropLast(5)) + ".promisor"
                try FileSystem.writeAtomically(
                    lines[...], to: promisor, permissions: 0o444, temporaryPrefix: ".promisor-")
            }
            try repository.objects.reloadPacks()
        }
        // Only commits that are here become shallow: a line naming anything else (or nothing)
        // would hide the history of a commit that arrives later.
        var shallow = shallowBefore
        if deepening {
            shallow.formUnion(negotiatedShallow.filter { Self.isCommit($0, in: repository.objects) })
            shallow.subtract(unshallowed)
        } else if isClone {
            // A clone of a shallow repository is shallow where the server is (git's
            // `update_shallow` for a clone).
            shallow.formUnion(remoteShallow.filter { Self.isCommit($0, in: repository.objects) })
        }

        let wanted =
            isClone
            ? Self.wantedRefs(outcome.listing, refspecs: cloneSpecs, singleBranch: singleBranch, branch: options.branch)
            : []
        let connectivity = ConnectivityCheck(objects: repository.objects)
        try connectivity.verify(
            tips: fetchEntries?.map(\.remoteID) ?? wanted.map(\.id),
            referenced: try links?.takeReferenced() ?? ObjectIDFlags(), before: objectsBeforePack)
        // An `unshallow` line is a claim that the commit's parents came: checked, before the
        // `shallow` file lets go of it.
        try connectivity.verifyParents(ofUnshallowed: shallowBefore.subtracting(shallow))

        // A cancellation that arrived while the pack was completed stops here, before anything
        // of the repository changes; abandon() then removes what was made.
        if cancellation.withLock({ $0 }) { throw CancelledError() }
        if shallow != shallowBefore { try writeShallow(shallow, in: repository) }
        // Tags the server sent along (include-tag), or whose commits came: a single-branch
        // clone follows them, written one by one as git's write_followtags writes them.
        var followedTags: [(remote: String, local: String, id: ObjectID)] = []
        if singleBranch && options.tags != FetchTags.none {
            let taken = Set(wanted.map(\.local))
            for ref in outcome.listing.refs where ref.name.hasPrefix("refs/tags/") && !ref.name.hasSuffix("^{}") {
                guard let id = ref.objectID, !taken.contains(ref.name), repository.objects.contains(id),
                    (try? RefStore.checkName(ref.name)) != nil
                else {
                    continue
                }
                followedTags.append((ref.name, ref.name, id))
            }
        }
        var peeler = TagPeeler(objects: repository.objects)
        var changes: [RefChange] = []
        var head: HeadState?
        if isClone {
            FileSystem.useSharedRepository(cloneSharedRepository)
            // git's clone writes every ref in one transaction, which refuses a name given twice.
            let all = Self.wantedRefs(
                outcome.listing, refspecs: cloneSpecs, singleBranch: singleBranch, branch: options.branch,
                keepDuplicates: true)
            let allNames = all.map(\.local)
            let followed = Set(allNames)
            try RefStore.checkInitialNames(
                allNames + (wanted + followedTags).map(\.local).filter { !followed.contains($0) })
            let records = wanted.map { RefRecord(name: $0.local, id: $0.id, peeled: peeler.peel($0.id)) }
            if !records.isEmpty { try repository.refs.writePackedRefs(records) }
            try repository.refs.apply(
                followedTags.map { RefUpdate(name: $0.local, newID: $0.id) }, atomic: false, objectType: nil,
                reflog: nil)
            changes = (wanted + followedTags).map {
                RefChange(remoteName: $0.remote, localName: $0.local, oldID: nil, newID: $0.id, kind: .created)
            }
            let fetched = wanted.map { (remote: $0.remote, local: $0.local, id: $0.id) }
            if options.bare || options.mirror {
                var bareHead = Self.remoteHead(outcome.listing, fetched: fetched, commit: { peeler.commit($0) })
                // `--branch` names HEAD's branch (or, for a tag, its commit, detached), as in a
                // work-tree clone: git's update_head, which a bare clone runs too.
                if let branch = options.branch {
                    if let ours = fetched.first(where: { $0.remote == "refs/heads/\(branch)" }) {
                        bareHead = .symbolic(ours.local)
                    } else if let tag = fetched.first(where: { $0.remote == "refs/tags/\(branch)" }) {
                        bareHead = .detached(peeler.commit(tag.id) ?? tag.id)
                    }
                }
                switch bareHead {
                case .symbolic(let target)?:
                    try repository.refs.setSymbolicRef(to: target)
                    try logBareCloneHead(new: try? repository.refs.resolve(target), message: "", in: repository)
                    head = .symbolic(target)
                case .detached(let id)?:
                    try Self.checkDetachedHead(id, in: repository.objects)
                    try repository.refs.setDetachedHead(id)
                    try logBareCloneHead(new: id, message: cloneReflogMessage, in: repository)
                    head = .detached(id)
                case nil:
                    head = try repository.refs.head()
                }
                if options.fetch.filter != nil || options.tags == FetchTags.none {
                    try writeCloneConfig(cloneConfigText(filter: options.fetch.filter), in: repository)
                }
            } else {
                head = try completeWorkTreeClone(
                    outcome.listing, mapped: all.filter { mapped in wanted.contains { $0.local == mapped.local } },
                    in: repository, peeler: &peeler)
            }
        } else if let update {
            if let objectsBefore {
                let rule = RemoteShallowRule(
                    remoteShallow: remoteShallow, hadBefore: hadBefore, localShallow: shallowBefore,
                    localTips: refsBefore.map(\.id), objectsBefore: objectsBefore, objects: repository.objects)
                refusedForShallow = rule.refusedRefs(try update.changingRefs())
            }
            let updated = try update.complete(
                refused: refusedForShallow, graph: DatabaseCommitGraph(objects: repository.objects, shallow: shallow))
            var result = FetchResult(
                gitDirectory: repository.gitDirectory, outcome: outcome, pack: indexed, changes: updated.changes,
                head: nil)
            result.ignoredRefs = updated.ignored
            result.warnings = updated.warnings
            result.fetchHead = updated.fetchHead
            result.refsWithoutLocalRef = updated.refsWithoutLocalRef
            result.atomicAborted = updated.atomicAborted
            indexed = nil  // kept from now on
            return result
        }
        var result = FetchResult(
            gitDirectory: repository.gitDirectory, outcome: outcome, pack: indexed, changes: changes, head: head)
        result.ignoredRefs =
            Self.mapRefs(outcome.listing, refspecs: cloneSpecs, singleBranch: singleBranch, branch: options.branch)
            .ignored
        indexed = nil  // kept from now on
        if let clonePath, !options.keepsRemovalOnSignal { SignalCleanup.forget(clonePath) }
        if let separate = options.separateGitDirectory, !options.keepsRemovalOnSignal { SignalCleanup.forget(separate) }
        return result
    }

    /// Whether `old` is an ancestor of `new` (or equal), as git's `in_merge_bases` decides it
    /// (`paint_down_to_common`): both histories are walked together, newest committer date
    /// first, each commit marked with the side(s) that reach it; a commit both sides reach
    /// marks its ancestors stale, and the walk ends when `new`'s side reaches `old` or nothing
    /// queued is left that is not stale. Dates only order the walk: a commit older than its
    /// parents (clock skew) is still found, where a cut-off by date would call a fast-forward
    /// a non-fast-forward.
    static func isAncestor(_ old: ObjectID, of new: ObjectID, graph: any CommitGraph) -> Bool {
        if old == new { return true }
        guard let oldCommit = graph.commit(old), let newCommit = graph.commit(new) else { return false }
        var walk = AncestryPaint()
        walk.add(old, side: AncestryPaint.oldSide, summary: oldCommit)
        walk.add(new, side: AncestryPaint.newSide, summary: newCommit)
        while let (flags, summary) = walk.next() {
            var painted = flags
            if flags & AncestryPaint.bothSides == AncestryPaint.bothSides { painted |= AncestryPaint.stale }
            for parent in summary.parents {
                if parent == old && painted & AncestryPaint.newSide != 0 { return true }
                guard walk.needs(parent, painted), let parentSummary = graph.commit(parent) else { continue }
                walk.add(parent, side: painted, summary: parentSummary)
            }
        }
        return false
    }

    /// Whether `id` names a commit the repository has (from the object's header alone).
    static func isCommit(_ id: ObjectID, in objects: ObjectDatabase) -> Bool {
        (try? objects.objectType(id)) == .commit
    }

    /// Where a clone's `HEAD` points, as git's clone decides (`guess_remote_head`, then
    /// `update_head`): the branch the remote's `HEAD` names, when that branch was fetched; the
    /// commit, detached, when it names another fetched ref (a tag); the remote `HEAD`'s commit,
    /// detached, when it names anything else, a name git refuses included. Over v0/v1 a `symref=`
    /// whose names git refuses is dropped (connect.c's `parse_one_symref_info`), and `HEAD` is
    /// guessed as if there were none: a fetched branch at the same commit (`master` first, then
    /// the first in name order), else the commit itself, detached. An unborn `HEAD` names its
    /// branch (a valid name under `refs/heads/`). Nil when there is nothing to say (an empty
    /// repository over v0): `HEAD` stays as the new repository has it. `commit` gives the commit
    /// an object names through annotated tags.
    static func remoteHead(
        _ listing: RefListing, fetched: [(remote: String, local: String, id: ObjectID)],
        commit: (ObjectID) -> ObjectID? = { $0 }
    ) -> HeadState? {
        guard let head = listing.refs.first(where: { $0.name == "HEAD" }) else { return nil }
        var target = head.symrefTarget
        if listing.protocolVersion != .v2, let name = target,
            !RefNameFormat.isValid(Array(name.utf8), allowOneLevel: true)
        {
            target = nil
        }
        guard let id = head.objectID else {
            guard let target, target.hasPrefix("refs/heads/"), (try? RefStore.checkName(target)) != nil else {
                return nil
            }
            return .symbolic(target)
        }
        if let target {
            guard let ref = fetched.first(where: { $0.remote == target }) else { return .detached(id) }
            if ref.local.hasPrefix("refs/heads/") { return .symbolic(ref.local) }
            return commit(ref.id).map { .detached($0) } ?? .detached(id)
        }
        let branches = fetched.filter { $0.local.hasPrefix("refs/heads/") && $0.id == id }.map(\.local)
        if branches.contains("refs/heads/master") { return .symbolic("refs/heads/master") }
        if let first = branches.min(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) { return .symbolic(first) }
        return .detached(id)
    }

    /// Asks the fetch to stop (from any thread): once the transfer is over, it fails with
    /// ``CancelledError`` before it changes the repository, if it has not begun to already.
    func cancel() { cancellation.withLock { $0 = true } }

    /// Removes everything this fetch created: the new repository, or the new pack.
    func abandon() {
        indexer = nil  // its temporary files go with it
        if let clonePath, createdDirectory || creatingRepository || repository != nil {
            if createdDirectory {
                try? FileSystem.removeTree(clonePath)
            } else if let names = try? FileSystem.contents(ofDirectory: clonePath) {
                for name in names { try? FileSystem.removeTree("\(clonePath)/\(name)") }
            }
        } else if let indexed {
            try? FileSystem.remove(indexed.packPath)
            try? FileSystem.remove(indexed.indexPath)
            try? FileSystem.remove(String(indexed.packPath.dropLast(5)) + ".promisor")
        }
        if createdSeparateGitDirectory, let separate = options.separateGitDirectory {
            if FileSystem.isSymbolicLink(separate) {
                // Made through a dangling link: emptied, the link and the directory left (git's).
                if let made = ConfigFiles.realPath(separate) {
                    for name in (try? FileSystem.contents(ofDirectory: made)) ?? [] {
                        try? FileSystem.removeTree("\(made)/\(name)")
                    }
                    SignalCleanup.forget(made)
                }
            } else {
                try? FileSystem.removeTree(separate)
                SignalCleanup.forget(separate)
            }
        }
        indexed = nil
        if let clonePath { SignalCleanup.forget(clonePath) }
    }
}
