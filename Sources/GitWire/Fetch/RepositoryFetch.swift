/// One clone or fetch into a local repository, shared by the blocking, run-loop and `async`
/// forms: it prepares the exchange from the repository's refs and history, stores the pack as
/// it arrives, and at the end completes the pack, checks that the new refs' history is all
/// there, and updates the refs all at once. On any failure nothing is left behind: a new
/// repository is removed, an existing one keeps its refs and files as they were.
final class RepositoryFetch {
    private let remoteURL: RemoteURL
    private let options: RepositoryFetchOptions
    private let progress: FetchProgressHandler?
    private let clonePath: String?
    private let existingPath: String?
    private var repository: Repository?
    private var createdDirectory = false
    private var indexer: PackIndexer?
    private var links: LinkCollector?
    private var indexed: PackIndexResult?
    private var shallowBefore: Set<ObjectID> = []
    private var shallowAdded: [ObjectID] = []
    private var shallowRemoved: [ObjectID] = []
    private var refsBefore: [RefRecord] = []
    /// The v0 advertisement's `shallow` lines: the server's repository is shallow there.
    private let advertisedShallow = Locked<[ObjectID]>([])
    /// The object format of the remote's listing, once it has arrived.
    private let listedFormat = Locked<ObjectFormat?>(nil)
    /// Refs a remote's shallow commits keep from being updated (see ``RemoteShallowRule``).
    private var refusedForShallow: Set<String> = []
    private(set) var failure: (any Error)?
    private let cancellation = Locked(false)
    /// A fetch into an existing repository: git's rules for its refs.
    private var update: RepositoryUpdate?
    /// The refspecs a clone follows.
    private var cloneSpecs: [Refspec] = []
    /// A clone's git directory (the work tree's `.git` unless bare).
    private var cloneGitDirectory: String? {
        clonePath.map { options.bare || options.mirror ? $0 : "\($0)/.git" }
    }

    /// A clone into a new repository at `path`.
    init(cloneFrom url: RemoteURL, into path: String, options: RepositoryFetchOptions, progress: FetchProgressHandler?)
    {
        remoteURL = url
        self.options = options
        self.progress = progress
        clonePath = path
        existingPath = nil
    }

    /// A fetch into the existing repository at `gitDirectory`.
    init(
        fetchFrom url: RemoteURL, into gitDirectory: String, options: RepositoryFetchOptions,
        progress: FetchProgressHandler?
    ) {
        remoteURL = url
        self.options = options
        self.progress = progress
        clonePath = nil
        existingPath = gitDirectory
    }

    private var isClone: Bool { clonePath != nil }

    /// Whether git would run this fetch through a remote helper (smart HTTP): for v0 and v1 its
    /// helper names a clone's `HEAD` by the branch it points to, so that want is not sent twice.
    var throughRemoteHelper = false

    /// A shallow clone fetches only the branch the remote's `HEAD` names (and the tags that
    /// point into what it brought), as `git clone --depth` implies `--single-branch`.
    private var singleBranch: Bool {
        isClone && !options.mirror && options.refspecs.isEmpty
            && (options.singleBranch
                ?? (options.fetch.depth != nil || options.fetch.shallowSince != nil
                    || !options.fetch.shallowExclude.isEmpty))
    }

    /// The protocol version asked for.
    var protocolVersion: ProtocolVersion { options.fetch.protocolVersion }

    // MARK: Before the exchange

    /// Creates or opens the repository and makes the exchange.
    func makeExchange() throws -> FetchExchange {
        let repository: Repository
        if let clonePath {
            // A dangling symbolic link counts as there: a failed clone leaves it (and the
            // directory made where it points, emptied, as git leaves it).
            let existed = FileSystem.exists(clonePath) || FileSystem.isSymbolicLink(clonePath)
            // A signal that kills the process removes what the clone made, as git's clone does
            // (a directory that existed, empty, is emptied and kept).
            if !existed || !FileSystem.exists(clonePath)
                || (FileSystem.isDirectory(clonePath)
                    && (try? FileSystem.contents(ofDirectory: clonePath))?.isEmpty == true)
            {
                SignalCleanup.removeTreeOnSignal(clonePath, keepDirectory: existed)
            }
            cloneSpecs = try options.cloneRefspecs()
            if !(options.bare || options.mirror) && existed {
                let contents = FileSystem.isDirectory(clonePath) ? try FileSystem.contents(ofDirectory: clonePath) : nil
                if contents?.isEmpty != true { throw RepositoryError.destinationExists(clonePath) }
            }
            if options.bare || options.mirror {
                repository = try Repository.create(at: clonePath, config: cloneConfig(filter: nil))
            } else {
                // The work tree first, then its `.git` (git's clone makes them in that order).
                if !existed { try FileSystem.makeDirectories(clonePath) }
                repository = try Repository.create(
                    at: "\(clonePath)/.git", config: cloneConfig(filter: nil))
            }
            createdDirectory = !existed
        } else {
            repository = try Repository(RepositoryLocation(at: existingPath!))
            refsBefore = try repository.refs.all()
            shallowBefore = try readShallow(repository)
        }
        self.repository = repository
        var fetchOptions = options.fetch
        fetchOptions.localShallow = shallowBefore.sorted()
        // A clone takes the remote's format; a fetch needs the remote to have its repository's.
        fetchOptions.objectFormat = isClone ? nil : repository.objectFormat
        let graph = DatabaseCommitGraph(objects: repository.objects, shallow: shallowBefore)
        let advertisedShallow = advertisedShallow
        let listedFormat = listedFormat
        if !isClone {
            let update = try RepositoryUpdate(
                repository: repository, options: options, remoteURL: remoteURL, refsBefore: refsBefore)
            self.update = update
            try update.truncateFetchHead()
            fetchOptions.includeTag = update.includeTag
            if fetchOptions.refPrefixes.isEmpty && fetchOptions.protocolVersion == .v2 {
                fetchOptions.refPrefixes = update.refPrefixes
            }
            return FetchExchange(
                options: fetchOptions, localTips: Array(Set(refsBefore.map(\.id))), graph: graph,
                selectWants: { listing in
                    advertisedShallow.withLock { $0 = listing.shallow }
                    listedFormat.withLock { $0 = listing.objectFormat }
                    return update.wants(listing)
                })
        }
        // git's clone asks for every tag by name; only a single-branch clone follows tags.
        if !singleBranch { fetchOptions.includeTag = false }
        if fetchOptions.refPrefixes.isEmpty && fetchOptions.protocolVersion == .v2 {
            fetchOptions.refPrefixes = Self.refPrefixes(for: cloneSpecs, clone: isClone)
        }
        let refspecs = cloneSpecs
        let singleBranch = singleBranch
        let branch = options.branch
        let isClone = isClone
        let headByTarget = throughRemoteHelper && fetchOptions.protocolVersion != .v2
        return FetchExchange(
            options: fetchOptions, localTips: Array(Set(refsBefore.map(\.id))), graph: graph,
            selectWants: { listing in
                advertisedShallow.withLock { $0 = listing.shallow }
                listedFormat.withLock { $0 = listing.objectFormat }
                return Self.wants(
                    listing, refspecs: refspecs, singleBranch: singleBranch, branch: branch, clone: isClone,
                    current: [:], headByTarget: headByTarget)
            })
    }

    /// The `ref-prefix` arguments git sends for these refspecs: each source up to its `*`, and
    /// `HEAD` for a clone (to learn where it points).
    static func refPrefixes(for refspecs: [Refspec], clone: Bool) -> [String] {
        var prefixes = clone ? ["HEAD"] : []
        for spec in refspecs {
            let prefix = spec.source.firstIndex(of: "*").map { String(spec.source[..<$0]) } ?? spec.source
            if !prefixes.contains(prefix) { prefixes.append(prefix) }
        }
        return prefixes
    }

    /// The object ids to ask for, as git asks: in the remote's order, and for a clone the
    /// remote's `HEAD` too (git wants it even when a branch names the same commit).
    /// Refs whose local ref already has the remote's value are left out, as git leaves them out.
    /// With `headByTarget` (git's v0/v1 over a remote helper, smart HTTP), a clone's `HEAD` stands
    /// for the branch it points to, which is asked for once, in its place in the remote's order.
    static func wants(
        _ listing: RefListing, refspecs: [Refspec], singleBranch: Bool, branch: String? = nil, clone: Bool,
        current: [String: ObjectID] = [:], headByTarget: Bool = false
    ) -> [ObjectID] {
        var wanted = Set(
            wantedRefs(listing, refspecs: refspecs, singleBranch: singleBranch, branch: branch)
                .filter { current[$0.local] != $0.id }.map(\.remote))
        // git's clone wants the remote's HEAD too, but not for one branch named by --branch.
        var wantsHead = clone && !(singleBranch && branch != nil)
        if clone && headByTarget, let head = listing.refs.first(where: { $0.name == "HEAD" }),
            let target = head.symrefTarget, listing.refs.contains(where: { $0.name == target })
        {
            wanted.insert(target)
            wantsHead = false
        }
        return listing.refs.compactMap { ref in
            guard let id = ref.objectID, wanted.contains(ref.name) || (wantsHead && ref.name == "HEAD") else {
                return nil
            }
            return id
        }
    }

    /// The remote refs the refspecs take, with their local names, in the remote's order.
    static func wantedRefs(
        _ listing: RefListing, refspecs: [Refspec], singleBranch: Bool = false, branch: String? = nil,
        keepDuplicates: Bool = false
    ) -> [(remote: String, local: String, id: ObjectID)] {
        mapRefs(listing, refspecs: refspecs, singleBranch: singleBranch, branch: branch, keepDuplicates: keepDuplicates)
            .wanted
    }

    /// The refspecs applied to the remote's refs: the refs taken, and the names of those left out
    /// because git refuses their local names (git's get_fetch_map: `* Ignoring funny ref
    /// '<local>' locally`, not an error) or because they are not UTF-8 (gitwire's names are
    /// text, and the replacement character would name another ref).
    static func mapRefs(
        _ listing: RefListing, refspecs: [Refspec], singleBranch: Bool = false, branch: String? = nil,
        keepDuplicates: Bool = false
    ) -> (wanted: [(remote: String, local: String, id: ObjectID)], ignored: [IgnoredRef]) {
        var result: [(String, String, ObjectID)] = []
        var ignored: [IgnoredRef] = []
        var taken = Set<String>()
        // The one ref a single-branch clone takes: --branch's (a branch, else a tag), else the
        // one the remote's HEAD names.
        var headBranch = listing.refs.first { $0.name == "HEAD" }?.symrefTarget
        if let branch {
            headBranch = ["refs/heads/\(branch)", "refs/tags/\(branch)"].first { name in
                listing.refs.contains { $0.name == name }
            }
        }
        for ref in listing.refs {
            let name = ref.name
            guard let id = ref.objectID, !name.hasSuffix("^{}") else { continue }
            if singleBranch && name != headBranch { continue }
            for spec in refspecs {
                guard let local = spec.destination(for: name) else { continue }
                if String(validating: ref.nameBytes, as: UTF8.self) == nil {
                    ignored.append(IgnoredRef(name: ref.nameBytes, reason: .notUTF8))
                    break
                }
                if taken.insert(local).inserted || keepDuplicates {
                    if (try? RefStore.checkName(local)) != nil {
                        result.append((name, local, id))
                    } else {
                        ignored.append(IgnoredRef(name: Array(local.utf8), reason: .badName))
                    }
                }
                break
            }
        }
        return (result, ignored)
    }

    // MARK: During the exchange

    /// Takes one event of the exchange. Throws when the pack cannot be stored; the caller then
    /// stops the exchange.
    func handle(_ event: FetchEvent) throws {
        switch event {
        case .packData(let bytes):
            if indexer == nil {
                // Objects are asked for only once refs were taken: a clone is of the remote's format.
                try adoptRemoteFormat()
                let format = repository!.objectFormat
                var packProgress: PackProgressHandler?
                if let handler = progress { packProgress = { handler(.pack($0)) } }
                // The server has said which commits become shallow before the pack starts (and,
                // over v0, where its own repository is shallow).
                var shallow = shallowBefore
                shallow.formUnion(shallowAdded)
                shallow.formUnion(advertisedShallow.withLock { $0 })
                shallow.subtract(shallowRemoved)
                let links = LinkCollector(
                    shallow: shallow, contentMayBeMissing: options.fetch.filter != nil, format: format)
                self.links = links
                var indexOptions = options.index
                indexOptions.links = links
                indexOptions.objectFormat = format
                indexer = try PackIndexer(
                    destination: .directory("\(repository!.commonDirectory)/objects/pack"), options: indexOptions,
                    progress: packProgress)
            }
            try indexer!.append(bytes)
        case .progress(let bytes):
            progress?(.remote(RemoteProgressLine(chunk: bytes)))
        case .shallow(let id):
            shallowAdded.append(id)
        case .unshallow(let id):
            shallowRemoved.append(id)
        case .warning(let text):
            progress?(.warning(text))
        case .ref:
            break
        }
    }

    // MARK: After the exchange

    /// Completes the pack, checks connectivity and updates the refs. The slow part (delta
    /// resolution) runs here: call it off the run loop's thread.
    func complete(_ outcome: FetchOutcome) throws -> FetchResult {
        if isClone && Self.takesRemoteFormat(outcome.listing, refspecs: cloneSpecs) {
            try adoptRemoteFormat()
        }
        let repository = repository!
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
        try ConnectivityCheck(objects: repository.objects).verify(
            tips: fetchEntries?.map(\.remoteID) ?? wanted.map(\.id),
            referenced: try links?.takeReferenced() ?? ObjectIDSet())

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
                switch Self.remoteHead(outcome.listing, fetched: fetched, commit: { peeler.commit($0) }) {
                case .symbolic(let target)?:
                    try repository.refs.setSymbolicRef(to: target)
                    head = .symbolic(target)
                case .detached(let id)?:
                    try repository.refs.setDetachedHead(id)
                    head = .detached(id)
                case nil:
                    head = try repository.refs.head()
                }
                if options.fetch.filter != nil || options.tags == FetchTags.none {
                    try writeCloneConfig(cloneConfig(filter: options.fetch.filter), in: repository)
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
            indexed = nil  // kept from now on
            return result
        }
        var result = FetchResult(
            gitDirectory: repository.gitDirectory, outcome: outcome, pack: indexed, changes: changes, head: head)
        result.ignoredRefs =
            Self.mapRefs(outcome.listing, refspecs: cloneSpecs, singleBranch: singleBranch, branch: options.branch)
            .ignored
        indexed = nil  // kept from now on
        if let clonePath { SignalCleanup.forget(clonePath) }
        return result
    }

    /// Whether `id` names a commit, or a tag that peels to one.
    private static func peelsToCommit(_ id: ObjectID, in objects: ObjectDatabase) -> Bool {
        var current = id
        for _ in 0..<64 {
            guard let object = try? objects.object(current) else { return false }
            switch object.type {
            case .commit: return true
            case .tag:
                guard let line = object.data.split(separator: 0x0a).first, line.starts(with: "object ".utf8),
                    let target = ObjectID(hex: line.dropFirst(7), format: objects.format)
                else { return false }
                current = target
            default: return false
            }
        }
        return false
    }

    /// Whether `old` is an ancestor of `new` (or equal), walking `new`'s history newest first
    /// and no further back than `old`'s committer time.
    static func isAncestor(_ old: ObjectID, of new: ObjectID, graph: any CommitGraph) -> Bool {
        guard let oldCommit = graph.commit(old) else { return false }
        var seen: Set<ObjectID> = []
        var stack = [new]
        while let id = stack.popLast() {
            if id == old { return true }
            guard seen.insert(id).inserted, let commit = graph.commit(id) else { continue }
            if commit.committerTime < oldCommit.committerTime - 86_400 { continue }
            stack.append(contentsOf: commit.parents)
        }
        return false
    }

    /// Whether `id` names a commit the repository has.
    static func isCommit(_ id: ObjectID, in objects: ObjectDatabase) -> Bool {
        (try? objects.object(id))?.type == .commit
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
        if let clonePath, createdDirectory || repository != nil {
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
        indexed = nil
        if let clonePath { SignalCleanup.forget(clonePath) }
    }

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
    private func adoptRemoteFormat() throws {
        guard isClone, let repository, let format = listedFormat.withLock({ $0 }), format != repository.objectFormat
        else { return }
        try FileSystem.writeAtomically(
            cloneConfig(filter: nil, format: format).text[...], to: "\(repository.gitDirectory)/config",
            permissions: 0o644, temporaryPrefix: ".config-")
        self.repository = try Repository(gitDirectory: repository.gitDirectory)
    }

    // MARK: Files

    /// The configuration git's clone writes: `core` (bare, or with a work tree and reflogs),
    /// the remote (URL, `tagOpt`, the fetch refspec, mirror and partial-clone settings), and
    /// the branch that tracks the remote's; `extensions.objectformat` for a format other than
    /// SHA-1 (`format`, else the repository's).
    private func cloneConfig(
        filter: String?, fetchRefspec: String? = nil, branch: String? = nil, format: ObjectFormat? = nil
    ) -> GitConfig {
        let format = format ?? repository?.objectFormat ?? .sha1
        let bare = options.bare || options.mirror
        var core =
            bare
            ? GitConfig.bareCore
            : GitConfig.Section(
                "core", nil,
                [
                    ("repositoryformatversion", "0"), ("filemode", "true"), ("bare", "false"),
                    ("logallrefupdates", "true"),
                ])
        if filter != nil || format != .sha1 { core.entries[0].value = "1" }
        var origin: [(key: String, value: String)] = [("url", options.configuredURL ?? remoteURL.text)]
        if options.tags == FetchTags.none { origin.append(("tagOpt", "--no-tags")) }
        if options.mirror {
            origin += [("fetch", "+refs/*:refs/*"), ("mirror", "true")]
        } else if let fetchRefspec {
            origin.append(("fetch", fetchRefspec))
        }
        if let filter { origin += [("promisor", "true"), ("partialclonefilter", filter)] }
        var sections = [core, GitConfig.Section("remote", options.originName, origin)]
        // git's clone adds the format once it knows the remote's, then the tracking branch.
        if format != .sha1 { sections.append(GitConfig.Section("extensions", nil, [("objectformat", format.name)])) }
        if let branch {
            sections.append(
                GitConfig.Section(
                    "branch", branch, [("remote", options.originName), ("merge", "refs/heads/\(branch)")]))
        }
        return GitConfig(sections)
    }

    private func writeCloneConfig(_ config: GitConfig, in repository: Repository) throws {
        try FileSystem.writeAtomically(
            config.text[...], to: "\(repository.gitDirectory)/config", permissions: 0o644, temporaryPrefix: ".config-")
    }

    /// What git's clone does after the refs are written, for a repository with a work tree
    /// (`update_remote_refs`, `update_head`, `write_refspec_config`): `refs/remotes/<origin>/HEAD`
    /// names the remote's `HEAD` branch; `HEAD` names the local branch made from it (or from
    /// `--branch`), which tracks it, or is detached at a tag or at the remote's detached `HEAD`;
    /// an empty repository's `HEAD` names its unborn branch. Reflogs as git writes them.
    private func completeWorkTreeClone(
        _ listing: RefListing, mapped: [(remote: String, local: String, id: ObjectID)], in repository: Repository,
        peeler: inout TagPeeler
    ) throws -> HeadState {
        let configuration = try GitConfiguration.load(gitDirectory: repository.gitDirectory)
        let reflog = Reflog(
            gitDirectory: repository.gitDirectory, commonDirectory: repository.commonDirectory, policy: .normal,
            identity: Reflog.committerIdentity(configuration, environment: Environment.all()))
        let message = "clone: from \(RemoteURL.withoutCredentials(options.configuredURL ?? remoteURL.text))"
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
            try repository.refs.apply(
                [RefUpdate(name: local, newID: ours.id, logMessage: message)], atomic: true, objectType: nil,
                reflog: reflog)
            trackedBranch = String(local.dropFirst("refs/heads/".count))
            head = .symbolic(local)
        } else if let ours {
            let commit = peeler.commit(ours.id) ?? ours.id
            try repository.refs.setDetachedHead(commit)
            try reflog.append("HEAD", old: nil, new: commit, message: message)
            head = .detached(commit)
        } else if let remoteHead, let id = remoteHead.objectID {
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
            cloneConfig(filter: options.fetch.filter, fetchRefspec: fetchRefspec, branch: trackedBranch), in: repository
        )
        return head
    }

    private func readShallow(_ repository: Repository) throws -> Set<ObjectID> {
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

    private func writeShallow(_ shallow: Set<ObjectID>, in repository: Repository) throws {
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
