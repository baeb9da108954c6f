/// How a fetched ref goes into `FETCH_HEAD` (git's `enum fetch_head_status`), in the order git
/// writes (and reports) them: refs for merging first, then the others; opportunistic updates
/// of remote-tracking refs are not written at all.
enum FetchHeadStatus: Int, Comparable, CaseIterable {
    case merge = -1
    case notForMerge = 0
    case ignore = 1

    static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// One remote ref a fetch takes (an entry of git's ref map): its remote name and value, the
/// local ref it updates (its `peer_ref`), if any, and how it goes into `FETCH_HEAD`.
struct FetchMapEntry: Hashable, Sendable {
    /// The remote ref's full name (or the object id's hex, for a refspec naming one).
    var remoteName: String
    /// The remote's value.
    var remoteID: ObjectID
    /// The local ref updated, if any.
    var localName: String?
    /// Whether a non-fast-forward update is allowed (from a `+` refspec).
    var force = false
    /// How it goes into `FETCH_HEAD`.
    var status = FetchHeadStatus.notForMerge
    /// The local ref's value before the fetch.
    var localOldID: ObjectID?
}

/// A fetch that cannot go on, in git's words (git dies with them).
public struct FetchRefMapError: GitWireError, Hashable, Sendable {
    /// git's message.
    public let message: String

    /// An error with git's message.
    public init(_ message: String) { self.message = message }

    /// ``GitWireErrorKind/usage``: the refspecs or the repository do not allow this fetch.
    public var kind: GitWireErrorKind { .usage }

    /// git's message.
    public var description: String { message }
}

/// git's ref-map rules (builtin/fetch.c `get_ref_map`, remote.c `get_fetch_map`,
/// `ref_remove_duplicates`, `apply_negative_refspecs`, `get_stale_heads`), on a remote's refs
/// and a snapshot of the local repository.
struct FetchRefMapper: Sendable {
    /// A remote ref with a value: its name, value and what it peels to.
    struct RemoteRef: Sendable {
        var name: String
        var id: ObjectID
        var peeled: ObjectID?
    }

    /// The remote's refs with values, in the server's order.
    let remoteRefs: [RemoteRef]
    /// Every local ref under `refs/` with its value (symbolic refs resolved).
    let localRefs: [String: ObjectID]
    /// The local refs under `refs/` that are symbolic.
    let localSymbolicRefs: Set<String>
    /// Whether the local repository has an object.
    let hasObject: @Sendable (ObjectID) -> Bool
    /// The local repository's object format (an object id in a refspec is read in it).
    let format: ObjectFormat
    /// Refs left out, with why (non-UTF-8 names, names git refuses locally).
    private(set) var ignored: [IgnoredRef] = []

    init(
        listing: RefListing, localRefs: [String: ObjectID], localSymbolicRefs: Set<String>,
        hasObject: @escaping @Sendable (ObjectID) -> Bool, format: ObjectFormat = .sha1
    ) {
        var refs: [RemoteRef] = []
        var ignored: [IgnoredRef] = []
        for ref in listing.refs {
            guard let id = ref.objectID else { continue }
            guard let name = String(validating: ref.nameBytes, as: UTF8.self) else {
                ignored.append(IgnoredRef(name: ref.nameBytes, reason: .notUTF8))
                continue
            }
            refs.append(RemoteRef(name: name, id: id, peeled: ref.peeled))
        }
        remoteRefs = refs
        self.localRefs = localRefs
        self.localSymbolicRefs = localSymbolicRefs
        self.hasObject = hasObject
        self.format = format
        self.ignored = ignored
    }

    // MARK: get_fetch_map

    /// The entries one refspec takes from `refs` (git's `get_fetch_map`): every match of a
    /// pattern (but those whose local name is a local symbolic ref), or the best match of a
    /// name; throws `couldn't find remote ref <name>` for a name that matches nothing unless
    /// `missingOK`. Entries whose local names git refuses are left out
    /// (`* Ignoring funny ref '<name>' locally`).
    mutating func fetchMap(_ spec: Refspec, from refs: [RemoteRef], missingOK: Bool) throws -> [FetchMapEntry] {
        if spec.isNegative { return [] }
        var entries: [FetchMapEntry] = []
        if spec.isPattern {
            for ref in refs where !ref.name.contains("^") {
                guard let local = spec.destination(for: ref.name) else { continue }
                if localSymbolicRefs.contains(local) { continue }
                entries.append(
                    FetchMapEntry(remoteName: ref.name, remoteID: ref.id, localName: local, force: spec.force))
            }
        } else {
            let name = spec.source.isEmpty ? "HEAD" : spec.source
            var found: FetchMapEntry?
            if spec.isExactObjectID, let id = ObjectID(hex: Array(name.utf8), format: format) {
                found = FetchMapEntry(remoteName: name, remoteID: id)
            } else if let ref = Self.bestMatch(name, in: refs) {
                found = FetchMapEntry(remoteName: ref.name, remoteID: ref.id)
            }
            guard var entry = found else {
                if missingOK { return [] }
                throw FetchRefMapError("couldn't find remote ref \(name)")
            }
            entry.localName = Refspec.localRefName(spec.destination)
            if entry.localName != nil { entry.force = spec.force }
            entries.append(entry)
        }
        return entries.filter { entry in
            guard let local = entry.localName else { return true }
            if local.hasPrefix("refs/"), RefNameFormat.isValid(Array(local.utf8), allowOneLevel: false) {
                return true
            }
            ignored.append(IgnoredRef(name: Array(local.utf8), reason: .badName))
            return false
        }
    }

    /// git's `find_ref_by_name_abbrev`: the ref `name` names best (the first of the best).
    static func bestMatch(_ name: String, in refs: [RemoteRef]) -> RemoteRef? {
        var best: RemoteRef?
        var bestScore = 0
        for ref in refs {
            let score = Refspec.matchScore(name, fullName: ref.name)
            if score > bestScore {
                best = ref
                bestScore = score
            }
        }
        return best
    }

    // MARK: get_ref_map

    /// What a fetch takes, as git's `get_ref_map` decides.
    struct Request: Sendable {
        /// The refspecs of the command line (with `refs/tags/*:refs/tags/*` for `--prune-tags`).
        var refspecs: [Refspec]
        /// The remote's configured refspecs (`remote.<name>.fetch`).
        var configuredRefspecs: [Refspec]
        /// `--refmap` values, in place of the configured refspecs for opportunistic updates.
        var refmap: [Refspec]? = nil
        /// The remote's name (the URL for a remote given by URL).
        var remoteName: String
        /// The current branch's `branch.<name>.remote`, if any.
        var branchRemote: String?
        /// The current branch's `branch.<name>.merge` values (only when it has a remote).
        var branchMerge: [String] = []
        /// `--tags` (all), `--no-tags` (none), or git's default (follow).
        var tags: FetchTags
        /// Whether tags follow by default for this remote (a remote from `.git/branches`).
        var followsTagsByDefault = false
    }

    /// The ref map and whether tags follow it (git's `autotags`).
    mutating func refMap(_ request: Request) throws -> (entries: [FetchMapEntry], autotags: Bool) {
        var autotags = request.followsTagsByDefault
        var entries: [FetchMapEntry] = []
        var opportunistic: [FetchMapEntry] = []
        if !request.refspecs.isEmpty {
            for spec in request.refspecs {
                entries += try fetchMap(spec, from: remoteRefs, missingOK: false)
                if spec.destination != nil { autotags = true }
            }
            for index in entries.indices { entries[index].status = .merge }
            let mapped = entries.map { RemoteRef(name: $0.remoteName, id: $0.remoteID) }
            for spec in request.refmap ?? request.configuredRefspecs {
                opportunistic += try fetchMap(spec, from: mapped, missingOK: true)
            }
        } else {
            let hasMerge = !request.branchMerge.isEmpty && request.branchRemote != nil
            let mergesFromHere = hasMerge && request.branchRemote == request.remoteName
            if !request.configuredRefspecs.isEmpty || mergesFromHere {
                for (index, spec) in request.configuredRefspecs.enumerated() {
                    entries += try fetchMap(spec, from: remoteRefs, missingOK: false)
                    if spec.destination != nil { autotags = true }
                    if index == 0 && !hasMerge && !entries.isEmpty && !spec.isPattern { entries[0].status = .merge }
                }
                if mergesFromHere {
                    for merge in request.branchMerge {
                        if let index = entries.firstIndex(where: {
                            Refspec.matchScore(merge, fullName: $0.remoteName) > 0
                        }) {
                            entries[index].status = .merge
                            continue
                        }
                        let spec = try Refspec(merge)
                        var added = try fetchMap(spec, from: remoteRefs, missingOK: true)
                        for index in added.indices { added[index].status = .merge }
                        entries += added
                    }
                }
            } else {
                guard let head = Self.bestMatch("HEAD", in: remoteRefs) else {
                    throw FetchRefMapError("couldn't find remote ref HEAD")
                }
                entries.append(FetchMapEntry(remoteName: head.name, remoteID: head.id, status: .merge))
            }
        }
        switch request.tags {
        case .all:
            entries += try fetchMap(try Refspec("refs/tags/*:refs/tags/*"), from: remoteRefs, missingOK: false)
        case .follow where autotags:
            entries += nonLocalTags(fetching: entries, queued: [])
        default:
            break
        }
        for index in opportunistic.indices { opportunistic[index].status = .ignore }
        entries += opportunistic
        let negative = request.refspecs.isEmpty ? request.configuredRefspecs : request.refspecs
        entries = entries.filter { entry in !negative.contains { $0.isNegative && $0.sourceMatches(entry.remoteName) } }
        entries = try Self.removingDuplicates(entries)
        for index in entries.indices {
            if let local = entries[index].localName { entries[index].localOldID = localRefs[local] }
        }
        return (entries, autotags)
    }

    /// git's `find_non_local_tags`: the remote's tags (in name order) that no local ref of the
    /// same name has, and whose object, or what it peels to, is here or being fetched. `queued`
    /// are names about to be created (git's queued transaction).
    func nonLocalTags(fetching entries: [FetchMapEntry], queued: Set<String>, localRefs: [String: ObjectID]? = nil)
        -> [FetchMapEntry]
    {
        let existing = localRefs ?? self.localRefs
        let fetched = Set(entries.map(\.remoteID))
        var seen = Set<String>()
        var kept: [String: ObjectID] = [:]
        for ref in remoteRefs where ref.name.hasPrefix("refs/tags/") && !ref.name.hasSuffix("^{}") {
            guard !seen.contains(ref.name), existing[ref.name] == nil, !queued.contains(ref.name) else { continue }
            seen.insert(ref.name)
            let reachable = { (id: ObjectID) in hasObject(id) || fetched.contains(id) }
            if reachable(ref.id) || ref.peeled.map(reachable) == true {
                kept[ref.name] = ref.id
            }
        }
        return kept.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map {
            FetchMapEntry(remoteName: $0, remoteID: kept[$0]!, localName: $0)
        }
    }

    /// git's `ref_remove_duplicates`: the first entry for each local ref stays; a second one from
    /// another remote ref is an error, unless one of them is only an opportunistic update.
    static func removingDuplicates(_ entries: [FetchMapEntry]) throws -> [FetchMapEntry] {
        var result: [FetchMapEntry] = []
        var byLocal: [String: Int] = [:]
        for entry in entries {
            guard let local = entry.localName else {
                result.append(entry)
                continue
            }
            guard let first = byLocal[local] else {
                byLocal[local] = result.count
                result.append(entry)
                continue
            }
            let earlier = result[first]
            if earlier.remoteName != entry.remoteName {
                switch (earlier.status == .ignore, entry.status == .ignore) {
                case (false, false):
                    throw FetchRefMapError(
                        "Cannot fetch both \(earlier.remoteName) and \(entry.remoteName) to \(local)")
                case (true, true):
                    throw FetchRefMapError("\(local) tracks both \(earlier.remoteName) and \(entry.remoteName)")
                default:
                    break
                }
            }
        }
        return result
    }

    /// The warnings git prints while it removes duplicates (`<local> usually tracks <a>, not <b>`).
    static func duplicateWarnings(_ entries: [FetchMapEntry]) -> [String] {
        var warnings: [String] = []
        var byLocal: [String: FetchMapEntry] = [:]
        for entry in entries {
            guard let local = entry.localName else { continue }
            guard let earlier = byLocal[local] else {
                byLocal[local] = entry
                continue
            }
            if earlier.remoteName != entry.remoteName && earlier.status != .ignore && entry.status == .ignore {
                warnings.append("\(local) usually tracks \(entry.remoteName), not \(earlier.remoteName)")
            }
        }
        return warnings
    }

    // MARK: Pruning

    /// git's `get_stale_heads`: the local refs (not symbolic) that `refspecs` map to from a
    /// remote ref, none of which is among `entries`' remote refs.
    static func staleRefs(
        _ refspecs: [Refspec], entries: [FetchMapEntry], localRefs: [String: ObjectID], localSymbolicRefs: Set<String>
    ) -> [(name: String, id: ObjectID)] {
        let fetched = Set(entries.map(\.remoteName))
        var stale: [(name: String, id: ObjectID)] = []
        for name in localRefs.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            let sources = refspecs.compactMap { $0.source(forDestination: name) }
            guard !sources.isEmpty, !localSymbolicRefs.contains(name) else { continue }
            // A ref whose remote side a negative refspec leaves out is not the refspecs' to prune.
            if sources.contains(where: { source in refspecs.contains { $0.isNegative && $0.sourceMatches(source) } }) {
                continue
            }
            if !sources.contains(where: { fetched.contains($0) }) { stale.append((name, localRefs[name]!)) }
        }
        return stale
    }
}

/// Which tags a fetch takes besides those its refspecs name.
public enum FetchTags: Hashable, Sendable {
    /// git's default: the tags that point into the history fetched, when the refspecs store
    /// refs (`include-tag`); `remote.<name>.tagOpt` may say otherwise.
    case follow
    /// Every tag (`--tags`, `tagOpt = --tags`).
    case all
    /// None (`--no-tags`, `tagOpt = --no-tags`).
    case none
}
