/// The part of a fetch into an existing repository that git's `builtin/fetch.c` does around the
/// transfer: which refs to take (`get_ref_map`), the refusal to move a checked-out branch,
/// `--prune`, the update of each ref with its reflog entry (`update_local_ref`), tags that
/// follow the fetched history (`find_non_local_tags`, `backfill_tags`) and `FETCH_HEAD`.
final class RepositoryUpdate: @unchecked Sendable {
    let repository: Repository
    let configuration: GitConfiguration
    let options: RepositoryFetchOptions
    /// The remote, as a configured one or a URL.
    let remote: ConfiguredRemote
    /// The URL as `FETCH_HEAD`, reflogs and the report show it (credentials removed).
    let displayURL: String
    /// The request the ref map is made from.
    let request: FetchRefMapper.Request
    /// The refspecs `--prune` follows.
    let pruneRefspecs: [Refspec]
    let prune: Bool
    let tags: FetchTags
    /// Whether tags follow (git's `autotags`, known from the refspecs before the listing).
    let autotags: Bool
    /// The local refs before the fetch.
    let localRefs: [String: ObjectID]
    let localSymbolicRefs: [String: String]
    let worktrees: Worktrees
    let reflog: Reflog
    let reflogAction: String
    private let presence: ObjectPresence

    /// The ref map, once the listing has come (or why there is none).
    private let mapped = Locked<Result<(entries: [FetchMapEntry], mapper: FetchRefMapper), any Error>?>(nil)

    init(
        repository: Repository, options: RepositoryFetchOptions, remoteURL: RemoteURL, refsBefore: [RefRecord]
    ) throws {
        self.repository = repository
        self.options = options
        let location = repository.location
        let configuration = try options.configuration ?? GitConfiguration.load(gitDirectory: location.gitDirectory)
        configuration.useSharedRepository()
        self.configuration = configuration
        var currentBranch: String?
        if case .symbolic(let target)? = try? repository.refs.head(), target.hasPrefix("refs/heads/") {
            currentBranch = String(target.dropFirst("refs/heads/".count))
        }
        let legacy = options.remote == nil
        var remote =
            options.remote ?? ConfiguredRemote(name: remoteURL.text, urls: [remoteURL.text])
        displayURL = RemoteURL.withoutCredentials(remote.url)
        // Tags, pruning: the command line, else the remote's settings, else fetch.*.
        tags = options.tags ?? remote.tagOption ?? .follow
        prune = try options.prune ?? remote.prune ?? configuration.bool("fetch.prune") ?? false
        let pruneTags = try options.pruneTags ?? remote.pruneTags ?? configuration.bool("fetch.pruneTags") ?? false
        var refspecs = legacy && options.refspecs.isEmpty ? RepositoryFetchOptions.defaultRefspecs : options.refspecs
        if pruneTags && options.refspecs.isEmpty && !legacy {
            let tagRefspec = try Refspec("refs/tags/*:refs/tags/*")
            if remote.isConfigured { remote.fetchRefspecs.append(tagRefspec) } else { refspecs.append(tagRefspec) }
        }
        self.remote = remote
        var request = FetchRefMapper.Request(
            refspecs: refspecs, configuredRefspecs: remote.fetchRefspecs, refmap: options.refmap,
            remoteName: remote.name, tags: tags)
        if let currentBranch, let branchRemote = try configuration.string("branch.\(currentBranch).remote") {
            request.branchRemote = branchRemote
            request.branchMerge = try configuration.all("branch.\(currentBranch).merge").compactMap { $0 }
        }
        self.request = request
        pruneRefspecs = refspecs.isEmpty ? remote.fetchRefspecs : refspecs
        // autotags: a refspec of the ones in force that stores refs.
        if !refspecs.isEmpty {
            autotags = refspecs.contains { $0.destination != nil && !$0.isNegative }
        } else if !remote.fetchRefspecs.isEmpty
            || (!request.branchMerge.isEmpty && request.branchRemote == remote.name)
        {
            autotags = remote.fetchRefspecs.contains { $0.destination != nil && !$0.isNegative }
        } else {
            autotags = false
        }
        localRefs = Dictionary(refsBefore.map { ($0.name, $0.id) }, uniquingKeysWith: { first, _ in first })
        localSymbolicRefs = try repository.refs.symbolicRefs()
        let bare = try configuration.bool("core.bare")
        worktrees = Worktrees(location, bare: bare)
        let isBare = bare == true || (bare == nil && location.workTree == nil)
        reflog = Reflog(
            gitDirectory: location.gitDirectory, commonDirectory: location.commonDirectory,
            policy: Reflog.policy(configuration, bare: isBare),
            identity: Reflog.committerIdentity(configuration, environment: Environment.all()))
        reflogAction =
            Environment.value("GIT_REFLOG_ACTION") ?? options.reflogAction
            ?? "fetch \(remote.isConfigured ? remote.name : displayURL)"
        presence = ObjectPresence(repository.objects)
    }

    /// Empties `FETCH_HEAD` before the transfer, as git's `do_fetch` does (unless it appends, or
    /// writes none).
    func truncateFetchHead() throws {
        guard options.writeFetchHead && !options.dryRun && !options.appendFetchHead else { return }
        try FileSystem.writeAtomically(
            [][...], to: "\(repository.gitDirectory)/FETCH_HEAD", permissions: 0o666, temporaryPrefix: ".FETCH_HEAD-",
            shared: false)
    }

    // MARK: Before the transfer

    /// The `ref-prefix` arguments git sends (`do_fetch`): the refspecs' prefixes (the
    /// configured ones and the current branch's merge refs when none is given), and
    /// `refs/tags/` when tags may follow.
    var refPrefixes: [String] {
        var prefixes: [String]
        if !request.refspecs.isEmpty {
            prefixes = Refspec.refPrefixes(request.refspecs)
        } else {
            prefixes = Refspec.refPrefixes(request.configuredRefspecs)
            if request.branchRemote == remote.name { prefixes += request.branchMerge }
        }
        if tags != .none && !prefixes.isEmpty { prefixes.append("refs/tags/") }
        return prefixes
    }

    /// Whether the request asks for `include-tag`.
    var includeTag: Bool { tags == .follow && autotags }

    /// The object ids to ask for once the listing has come: the ref map's, in the remote's
    /// order (the map itself, or why there is none, is kept for ``complete``).
    func wants(_ listing: RefListing) -> [ObjectID] {
        var mapper = FetchRefMapper(
            listing: listing, localRefs: localRefs, localSymbolicRefs: Set(localSymbolicRefs.keys),
            hasObject: { [presence] in presence.contains($0) }, format: repository.objectFormat)
        do {
            let (entries, _) = try mapper.refMap(request)
            if !options.updateHeadOK {
                for entry in entries {
                    guard let local = entry.localName, local.hasPrefix("refs/heads/"),
                        let path = worktrees.checkedOut(local)
                    else { continue }
                    throw FetchRefMapError("refusing to fetch into branch '\(local)' checked out at '\(path)'")
                }
            }
            mapped.withLock { $0 = .success((entries, mapper)) }
            // A ref whose local ref already has the remote's value is not asked for
            // (transport_fetch_refs); when none is left and the request deepens, all are (git's
            // check_exist_and_connected fails on purpose then, and transport_fetch_refs sends
            // every ref), or a shallow repository could never be deepened.
            var sought = entries.filter { $0.localName == nil || $0.localOldID != $0.remoteID }
            if sought.isEmpty && options.fetch.deepens { sought = entries }
            let wanted = Set(sought.map(\.remoteName))
            var ids: [ObjectID] = []
            for ref in listing.refs where wanted.contains(ref.name) {
                if let id = ref.objectID { ids.append(id) }
            }
            let listed = Set(listing.refs.map(\.name))
            for entry in sought where !listed.contains(entry.remoteName) { ids.append(entry.remoteID) }
            return ids
        } catch {
            mapped.withLock { $0 = .failure(error) }
            return []
        }
    }

    /// The ref map (throws what made it impossible).
    func entries() throws -> (entries: [FetchMapEntry], mapper: FetchRefMapper) {
        guard let result = mapped.withLock({ $0 }) else { throw CancelledError() }
        return try result.get()
    }

    /// The local names of the ref map's entries whose values change (for the shallow rule).
    func changingRefs() throws -> [(local: String, id: ObjectID)] {
        try entries().entries.compactMap { entry in
            guard let local = entry.localName, entry.localOldID != entry.remoteID else { return nil }
            return (local, entry.remoteID)
        }
    }

    // MARK: After the transfer

    /// What the update did.
    struct Outcome {
        var changes: [RefChange] = []
        var fetchHead: [String] = []
        var warnings: [String] = []
        var ignored: [IgnoredRef] = []
        /// The remote names of the ref map's entries with no local ref.
        var refsWithoutLocalRef: [String] = []
        /// --atomic with a ref rejected or failed: nothing was updated and `FETCH_HEAD` is empty.
        var atomicAborted = false
    }

    /// Prunes, updates the refs and writes `FETCH_HEAD`, as git's `do_fetch` does once the pack
    /// is here; `refused` are refs the shallow rule refuses.
    func complete(refused: Set<String>, graph: DatabaseCommitGraph) throws -> Outcome {
        let (entries, mapper) = try entries()
        var outcome = Outcome()
        outcome.warnings = FetchRefMapper.duplicateWarnings(entries)
        outcome.refsWithoutLocalRef = entries.filter { $0.localName == nil }.map(\.remoteName)
        presence.reload()
        var pending: [RefUpdate] = []  // --atomic: one transaction at the end
        var fetchHead: [String] = []
        let writesFetchHead = options.writeFetchHead && !options.dryRun

        // Pruning comes first, before anything is stored.
        if prune {
            let stale = FetchRefMapper.staleRefs(
                pruneRefspecs, entries: entries, localRefs: localRefs, localSymbolicRefs: Set(localSymbolicRefs.keys))
            var deletions: [RefChange] = []
            for (name, id) in stale {
                var change = RefChange(remoteName: nil, localName: name, oldID: id, newID: nil, kind: .deleted)
                change.phase = .prune
                change.danglingSymbolicRefs = localSymbolicRefs.filter { $0.value == name }.keys.sorted {
                    $0.utf8.lexicographicallyPrecedes($1.utf8)
                }
                deletions.append(change)
            }
            let updates = deletions.map {
                RefUpdate(name: $0.localName, newID: nil, expectedOldID: nil, logMessage: "fetch: prune")
            }
            if !options.dryRun && !updates.isEmpty {
                if options.atomic {
                    pending += updates
                } else {
                    let failures = try repository.refs.apply(updates, atomic: false, objectType: nil, reflog: reflog)
                    attach(failures, to: &deletions)
                }
            }
            outcome.changes += deletions
        }

        let first = try store(
            entries, phase: .fetch, refused: refused, graph: graph, pending: &pending, fetchHead: &fetchHead)
        outcome.changes += first

        // Tags whose objects the transfer brought (git's backfill), unless a ref of the first
        // part failed (git then stops there).
        let firstFailed = first.contains { $0.kind == .rejected || $0.error != nil }
        if tags == .follow && autotags && !firstFailed {
            let queued = Set(pending.filter { $0.newID != nil && $0.name.hasPrefix("refs/tags/") }.map(\.name))
            // The refs as they are now (a dry run changed none; --atomic has them queued).
            var refsNow = localRefs
            if !options.atomic && !options.dryRun {
                refsNow = Dictionary(
                    try repository.refs.all().map { ($0.name, $0.id) }, uniquingKeysWith: { first, _ in first })
            }
            let followed = mapper.nonLocalTags(fetching: [], queued: queued, localRefs: refsNow).filter {
                presence.contains($0.remoteID)
            }
            if !followed.isEmpty {
                outcome.changes += try store(
                    followed, phase: .followedTags, refused: refused, graph: graph, pending: &pending,
                    fetchHead: &fetchHead)
            }
        }
        // git's --atomic: a ref rejected (or failed) aborts the whole transaction, the prunes
        // and the other refs with it, and FETCH_HEAD (opened, so emptied, before) gets no line.
        if options.atomic && !options.dryRun
            && outcome.changes.contains(where: { $0.kind == .rejected || $0.error != nil })
        {
            pending = []
            fetchHead = []
            outcome.atomicAborted = true
        }
        if options.atomic && !pending.isEmpty && !options.dryRun {
            try repository.refs.apply(
                pending, atomic: true, objectType: { [presence] in presence.type($0) }, reflog: reflog)
        }
        if writesFetchHead {
            var bytes: [UInt8] = []
            for line in fetchHead { bytes += Array(line.utf8) + [0x0a] }
            let path = "\(repository.gitDirectory)/FETCH_HEAD"
            if options.appendFetchHead {
                try FileSystem.append(bytes, to: path)
            } else {
                try FileSystem.writeAtomically(
                    bytes[...], to: path, permissions: 0o666, temporaryPrefix: ".FETCH_HEAD-", shared: false)
            }
            outcome.fetchHead = fetchHead
        }
        outcome.ignored = mapper.ignored
        return outcome
    }

    /// git's `store_updated_refs` for `entries`: a pass for each `FETCH_HEAD` status in turn
    /// (refs for merging first), each entry's line for `FETCH_HEAD` and the update of its local
    /// ref, with the change git reports.
    private func store(
        _ entries: [FetchMapEntry], phase: RefChange.Phase, refused: Set<String>, graph: DatabaseCommitGraph,
        pending: inout [RefUpdate], fetchHead: inout [String]
    ) throws -> [RefChange] {
        var entries = entries
        let writesFetchHead = options.writeFetchHead && !options.dryRun
        var peeler = TagPeeler(objects: repository.objects)
        if writesFetchHead {
            // What is not a commit (or a tag of one) is never for merging.
            for index in entries.indices where peeler.commit(entries[index].remoteID) == nil {
                entries[index].status = .notForMerge
            }
        }
        let url = Self.fetchHeadURL(displayURL)
        var changes: [RefChange] = []
        // The updates this pass makes, applied together at its end (one look at the ref store
        // for all of them, as git's transaction reads its loose-ref cache once; one apply for
        // each ref looked at every loose ref each time, quadratic in the refs fetched).
        var queued: [RefUpdate] = []
        for status in FetchHeadStatus.allCases {
            for entry in entries {
                if let local = entry.localName, refused.contains(local) {
                    // Refused for the remote's shallow history: warned about in the first pass,
                    // neither stored nor written to FETCH_HEAD.
                    if status == .merge {
                        var change = RefChange(
                            remoteName: entry.remoteName, localName: local, oldID: entry.localOldID, newID: nil,
                            kind: .rejectedShallow)
                        change.remoteID = entry.remoteID
                        change.phase = phase
                        changes.append(change)
                    }
                    continue
                }
                guard entry.status == status else { continue }
                let (kind, what) = Self.describe(entry.remoteName)
                if status != .ignore {
                    var note = ""
                    if !what.isEmpty { note = (kind.isEmpty ? "" : "\(kind) ") + "'\(what)' of " }
                    let marker = status == .notForMerge ? "not-for-merge" : ""
                    fetchHead.append("\(entry.remoteID.hex)\t\(marker)\t\(note)\(url)")
                }
                if let local = entry.localName {
                    var change = try update(entry, local: local, peeler: &peeler, graph: graph, queued: &queued)
                    change.phase = phase
                    changes.append(change)
                } else if options.writeFetchHead || options.dryRun {
                    var change = RefChange(
                        remoteName: entry.remoteName, localName: "FETCH_HEAD", oldID: nil, newID: entry.remoteID,
                        kind: .fetchHeadOnly)
                    change.phase = phase
                    changes.append(change)
                }
            }
        }
        if options.atomic {
            pending += queued
        } else if !queued.isEmpty {
            let failures = try repository.refs.apply(
                queued, atomic: false, objectType: { [presence] in presence.type($0) }, reflog: reflog)
            attach(failures, to: &changes)
        }
        return changes
    }

    /// git's `update_local_ref`.
    private func update(
        _ entry: FetchMapEntry, local: String, peeler: inout TagPeeler, graph: DatabaseCommitGraph,
        queued: inout [RefUpdate]
    ) throws -> RefChange {
        let old = entry.localOldID
        let new = entry.remoteID
        var change = RefChange(remoteName: entry.remoteName, localName: local, oldID: old, newID: new, kind: .upToDate)
        change.remoteID = new
        if old == new { return change }
        let force = options.force || entry.force
        var message: String
        var checkOld = false
        if old != nil && local.hasPrefix("refs/tags/") {
            guard force else {
                change.kind = .rejected
                change.newID = nil
                return change
            }
            change.kind = .tagUpdate
            message = "updating tag"
        } else if let old, let current = peeler.commit(old), let updated = peeler.commit(new) {
            checkOld = true
            if RepositoryFetch.isAncestor(current, of: updated, graph: graph) {
                change.kind = .fastForward
                message = "fast-forward"
            } else if force {
                change.kind = .forced
                message = "forced-update"
            } else {
                change.kind = .rejected
                change.newID = nil
                return change
            }
        } else {
            change.kind = .created
            message =
                entry.remoteName.hasPrefix("refs/tags/")
                ? "storing tag" : entry.remoteName.hasPrefix("refs/heads/") ? "storing head" : "storing ref"
        }
        guard !options.dryRun else { return change }
        let update = RefUpdate(
            name: local, newID: new, expectedOldID: checkOld ? old : nil, logMessage: "\(reflogAction): \(message)")
        queued.append(update)
        return change
    }

    private func attach(_ failures: [RefUpdateError], to changes: inout [RefChange]) {
        let byName = Dictionary(failures.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for index in changes.indices { changes[index].error = byName[changes[index].localName] }
    }

    /// How git describes a remote ref in `FETCH_HEAD` and its report: the kind (`branch`,
    /// `tag`, `remote-tracking branch`, or none) and the short name (none for `HEAD`).
    static func describe(_ name: String) -> (kind: String, what: String) {
        if name == "HEAD" { return ("", "") }
        for (prefix, kind) in [
            ("refs/heads/", "branch"), ("refs/tags/", "tag"), ("refs/remotes/", "remote-tracking branch"),
        ]
        where name.hasPrefix(prefix) {
            return (kind, String(name.dropFirst(prefix.count)))
        }
        return ("", name)
    }

    /// The URL as git writes it into `FETCH_HEAD` and its `From` line: trailing slashes and a
    /// final `.git` dropped, newlines written as `\n`.
    static func fetchHeadURL(_ url: String) -> String {
        var bytes = Array(url.utf8)
        var last = bytes.count - 1
        while last >= 0 && bytes[last] == UInt8(ascii: "/") { last -= 1 }
        var length = last + 1
        if last > 4 && bytes[(last - 3)...last].elementsEqual(".git".utf8) { length = last - 3 }
        bytes.removeSubrange(length...)
        var escaped: [UInt8] = []
        for byte in bytes {
            if byte == 0x0a { escaped += Array("\\n".utf8) } else { escaped.append(byte) }
        }
        return String(decoding: escaped, as: UTF8.self)
    }
}

/// Whether objects are in a repository, from any thread (the listing is read on the run loop's
/// thread, the refs are updated on another).
final class ObjectPresence: @unchecked Sendable {
    private struct State: ~Copyable, @unchecked Sendable {
        let objects: ObjectDatabase
    }

    private let state: Locked<State>

    init(_ objects: ObjectDatabase) { state = Locked(State(objects: objects)) }

    func contains(_ id: ObjectID) -> Bool { state.withLock { $0.objects.contains(id) } }

    func type(_ id: ObjectID) -> ObjectType? { state.withLock { try? $0.objects.objectType(id) } }

    /// Reads the packs again (after a new one arrived).
    func reload() { state.withLock { try? $0.objects.reloadPacks() } }
}
