/// One clone or fetch into a local repository, shared by the blocking, run-loop and `async`
/// forms: it prepares the exchange from the repository's refs and history, stores the pack as
/// it arrives, and at the end completes the pack, checks that the new refs' history is all
/// there, and updates the refs all at once. On any failure nothing is left behind: a new
/// repository is removed, an existing one keeps its refs and files as they were.
final class RepositoryFetch {
    let remoteURL: RemoteURL
    let options: RepositoryFetchOptions
    let progress: FetchProgressHandler?
    let clonePath: String?
    let existingPath: String?
    var repository: Repository?
    var createdDirectory = false
    /// Whether a clone has begun to make its repository (in a directory it made, or one that
    /// was there empty): what ``abandon()`` removes from then on.
    var creatingRepository = false
    /// A clone's `core.sharedRepository`: the one it started with, for all but its pack.
    var cloneSharedRepository: Int32 = 0
    var indexer: PackIndexer?
    var links: LinkCollector?
    var indexed: PackIndexResult?
    var shallowBefore: Set<ObjectID> = []
    var shallowAdded: [ObjectID] = []
    var shallowRemoved: [ObjectID] = []
    var refsBefore: [RefRecord] = []
    /// The v0 advertisement's `shallow` lines: the server's repository is shallow there.
    let advertisedShallow = Locked<[ObjectID]>([])
    /// The object format of the remote's listing, once it has arrived.
    let listedFormat = Locked<ObjectFormat?>(nil)
    /// Refs a remote's shallow commits keep from being updated (see ``RemoteShallowRule``).
    var refusedForShallow: Set<String> = []
    let cancellation = Locked(false)
    /// A fetch into an existing repository: git's rules for its refs.
    var update: RepositoryUpdate?
    /// The refspecs a clone follows.
    var cloneSpecs: [Refspec] = []
    /// The `config` of a clone's template (``RepositoryFetchOptions/templateDirectory``), which
    /// the new configuration starts from.
    var templateConfig: [UInt8]?
    /// Whether a clone made its separate git directory (``RepositoryFetchOptions/separateGitDirectory``).
    var createdSeparateGitDirectory = false

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

    var isClone: Bool { clonePath != nil }

    /// Whether git would run this fetch through a remote helper (smart HTTP): for v0 and v1 its
    /// helper names a clone's `HEAD` by the branch it points to, so that want is not sent twice.
    var throughRemoteHelper = false

    /// A shallow clone fetches only the branch the remote's `HEAD` names (and the tags that
    /// point into what it brought), as `git clone --depth` implies `--single-branch`.
    var singleBranch: Bool {
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
        var repository: Repository
        if let clonePath {
            // git's clone takes `core.sharedRepository` from the configuration it starts with
            // (system, global, `git -c`), not from `clone -c`, whose entries it writes into the
            // new repository's.
            // It makes the work tree itself by the umask alone.
            FileSystem.useSharedRepository(0)
            let startedWith = try? GitConfiguration.load()
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
            let template = options.templateDirectory
            // Only a regular file (a link followed) is read: a FIFO there (git 2.39 waits on it
            // for ever) is passed over.
            if let template, !template.isEmpty, FileSystem.isDirectory(template),
                FileSystem.status("\(template)/config")?.isRegularFile == true
            {
                templateConfig = try? FileSystem.read("\(template)/config")
            }
            // From here a failure removes what was made (the directory when the clone made it,
            // else what it put in it): a template git's init cannot copy, say. A directory that
            // was there and not empty is refused first, so nothing of the user's is removed.
            let progress = progress
            let ignored: (String) -> Void = { path in progress?(.error("ignoring template \(path)")) }
            if options.bare || options.mirror {
                if FileSystem.exists(clonePath),
                    try !FileSystem.isDirectory(clonePath) || !FileSystem.contents(ofDirectory: clonePath).isEmpty
                {
                    throw RepositoryError.destinationExists(clonePath)
                }
                createdDirectory = !existed
                creatingRepository = true
                startedWith?.useSharedRepository()
                repository = try Repository.create(
                    at: clonePath, config: cloneConfig(filter: nil), template: template,
                    templateIgnored: ignored)
            } else if let separate = options.separateGitDirectory {
                // git's init with a separate git directory: the work tree, the repository where
                // it was asked for, then the work tree's `.git` file naming it by its real path.
                // A dangling symbolic link is followed, as git follows it: the directory is made
                // where it points, and a failed clone empties it and leaves the link, as git does.
                if FileSystem.exists(separate) { throw RepositoryError.destinationExists(separate) }
                let throughLink = FileSystem.isSymbolicLink(separate)
                if !existed { try FileSystem.makeDirectories(clonePath) }
                createdDirectory = !existed
                if !throughLink { SignalCleanup.removeTreeOnSignal(separate, keepDirectory: false) }
                startedWith?.useSharedRepository()
                createdSeparateGitDirectory = true
                creatingRepository = true
                repository = try Repository.create(
                    at: separate, config: cloneConfig(filter: nil), template: template,
                    templateIgnored: ignored)
                let real = ConfigFiles.realPath(separate) ?? separate
                if throughLink { SignalCleanup.removeTreeOnSignal(real, keepDirectory: true) }
                try FileSystem.writeAtomically(
                    Array("gitdir: \(real)\n".utf8)[...], to: "\(clonePath)/.git", permissions: 0o666,
                    temporaryPrefix: ".git-", shared: false)
            } else {
                // The work tree first, then its `.git` (git's clone makes them in that order).
                if !existed { try FileSystem.makeDirectories(clonePath) }
                createdDirectory = !existed
                creatingRepository = true
                startedWith?.useSharedRepository()
                repository = try Repository.create(
                    at: "\(clonePath)/.git", config: cloneConfig(filter: nil), template: template,
                    templateIgnored: ignored)
            }
            createdDirectory = !existed
            if templateConfig != nil { try writeCloneConfig(cloneConfigText(filter: nil), in: repository) }
            cloneSharedRepository = FileSystem.sharedRepository
            if !options.alternates.isEmpty {
                for objects in options.alternates {
                    try ReferenceRepository.addAlternate(objects, gitDirectory: repository.gitDirectory)
                }
                // Opened again, to read the alternates' objects.
                repository = try Repository(gitDirectory: repository.gitDirectory)
            }
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
                options: fetchOptions, localTips: localTips(repository), graph: graph,
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
            options: fetchOptions, localTips: localTips(repository), graph: graph,
            selectWants: { listing in
                advertisedShallow.withLock { $0 = listing.shallow }
                listedFormat.withLock { $0 = listing.objectFormat }
                return Self.wants(
                    listing, refspecs: refspecs, singleBranch: singleBranch, branch: branch, clone: isClone,
                    current: [:], headByTarget: headByTarget)
            })
    }

    /// The commits the negotiation starts from, as git's fetch-pack takes them: the ids of the
    /// repository's refs, in order, each once, then those of its alternates' refs
    /// (`for_each_cached_alternate`), which git marks complete and offers as `have`s too, so that
    /// a fetch into a `clone --shared`/`--reference` repository brings only what the alternates
    /// lack.
    func localTips(_ repository: Repository) -> [ObjectID] {
        var seen = Set<ObjectID>()
        return (refsBefore.map(\.id) + repository.objects.alternateRefTips()).filter { seen.insert($0).inserted }
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
}
