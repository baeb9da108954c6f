/// Which objects a push sends: those reachable from the new tips and not from the tips the remote
/// has (`git rev-list --objects <include> --not <exclude>`), walked as git walks them: commits
/// newest first by committer date, stopping once only commits the remote has are left; the trees
/// of the boundary commits (what the remote has next to what is sent) are marked as the remote's,
/// so their objects are not sent and may serve as bases of a thin pack.
struct ObjectWalk {
    /// One object to send.
    struct Entry {
        var id: ObjectID
        var type: ObjectType
        /// ``ObjectLinks/nameHash(_:)`` of the path the object was found at (0: none).
        var nameHash: UInt32 = 0
    }

    /// What to send: commits in walk order, then tags, then trees and blobs in traversal order.
    private(set) var objects: [Entry] = []
    /// Objects known to be on the remote (the boundary commits' trees and what they hold, and
    /// the excluded tips): never sent, usable as thin-pack bases.
    private(set) var remoteHas = ObjectIDTable()
    /// For a thin pack: objects the remote has at the paths of objects sent, in the trees of
    /// the first boundary commits (git's preferred bases), as delta bases that are not sent.
    private(set) var preferredBases: [Entry] = []
    private var baseTrees: [ObjectID] = []
    private var baseTreeEntries: [ObjectID: [ArraySlice<UInt8>: ObjectLinks.Link]] = [:]
    private var basePathsDone: Set<[UInt8]> = []
    private var preferredSeen: Set<ObjectID> = []
    /// The walk on one thread's last tree at each path (see ``TreeReferences``).
    private var treeReferences = TreeReferences<[UInt8]>()
    /// How many boundary trees serve as preferred bases (git's default window).
    private static let maximumBaseTrees = 10

    /// How many commit objects the walk read (those the commit-graph did not give).
    private(set) var commitObjectsRead = 0
    private let database: ObjectDatabase
    /// The repository's commit-graph, when it has one and the walk may read it.
    private let graph: CommitGraphChain?

    /// How many commits past the point where only the remote's commits are left the walk goes on
    /// (git's "slop"), for committer dates out of order.
    private static let slop = 5

    /// The longest chain of tags naming tags followed (git's has no bound; 64, as before, refused
    /// pushes git makes): ``TagChain/longest``, the fetch negotiator's too.
    static let longestTagChain = TagChain.longest

    /// How many commits to send make the walk read trees on a thread of its own (see
    /// ``addTreesReadAhead(_:seen:)``); fewer are walked on the calling thread alone.
    static let readAheadCommits = 16

    /// Walks `database` from `include` (any object ids) down to `exclude` (ids the remote has;
    /// those not in `database` are ignored, as git ignores them). `readAhead` says whether trees
    /// are read on a second thread (nil: when the machine has two processors or more and the
    /// walk sends ``readAheadCommits`` commits or more); the objects and their order are the
    /// same either way. `commitGraph`: whether the repository's commit-graph (when it has one)
    /// gives commits' trees, parents and dates instead of their objects, as git's walk reads it;
    /// the objects and their order are the same either way for a graph that tells the truth.
    init(
        database: ObjectDatabase, include: [ObjectID], exclude: [ObjectID], thin: Bool = false,
        readAhead: Bool? = nil, commitGraph: Bool = true
    ) throws {
        self.database = database
        self.graph = database.commitGraph(enabled: commitGraph)
        var commitTips: [(ObjectID, Bool)] = []
        var tags: [Entry] = []
        var otherTips: [Entry] = []
        var seenTips: Set<ObjectID> = []
        for (id, excluded) in exclude.map({ ($0, true) }) + include.map({ ($0, false) }) {
            guard excluded ? database.contains(id) : true else { continue }
            var current = id
            var hops = 0
            while true {
                guard let object = try database.object(current) else {
                    throw PushPackError.missingObject(current)
                }
                switch object.type {
                case .tag:
                    if excluded {
                        remoteHas.insert(current)
                    } else if seenTips.insert(current).inserted {
                        tags.append(Entry(id: current, type: .tag))
                    }
                    guard
                        let target = try ObjectLinks.links(of: .tag, data: object.data, format: database.format).first,
                        hops < ObjectWalk.longestTagChain
                    else {
                        throw PushPackError.malformed(current)
                    }
                    current = target.id
                    hops += 1
                    continue
                case .commit:
                    commitTips.append((current, excluded))
                case .tree, .blob:
                    if excluded {
                        remoteHas.insert(current)
                    } else {
                        otherTips.append(Entry(id: current, type: object.type))
                    }
                }
                break
            }
        }
        let (commits, edges, parentEdges) = try walkCommits(commitTips)
        for edge in edges { try markTreeOnRemote(edge) }
        // git's preferred bases come from the boundary parents only, not the remote's tips.
        if thin { baseTrees = Array(parentEdges.prefix(Self.maximumBaseTrees)) }
        var seen = remoteHas
        for commit in commits where seen.insert(commit.id).inserted {
            objects.append(Entry(id: commit.id, type: .commit))
        }
        for tag in tags where !remoteHas.contains(tag.id) && seen.insert(tag.id).inserted { objects.append(tag) }
        for tip in otherTips where seen.insert(tip.id).inserted {
            objects.append(tip)
            if tip.type == .tree { try addTreeContents(tip.id, seen: &seen) }
        }
        let roots = commits.map(\.tree)
        if readAhead ?? (WorkerThreads.processorCount > 1 && roots.count >= Self.readAheadCommits),
            try addTreesReadAhead(roots, seen: &seen)
        {
            return
        }
        for root in roots where seen.insert(root).inserted {
            try addPreferredBases(path: [])
            objects.append(Entry(id: root, type: .tree))
            try addTreeContents(root, seen: &seen)
        }
    }

    /// What the tree reader hands to the walk, in the order the walk takes the trees.
    private enum TreeRead {
        /// A commit's tree not seen before: a walk of its contents starts.
        case root(ObjectID)
        /// The next tree of the walk (depth first, as ``addTreeContents(_:seen:)`` goes) and the
        /// trees it holds that were not seen before, in entry order.
        case tree(id: ObjectID, data: [UInt8], newSubtrees: [ObjectID])
        /// Reading stopped with this error.
        case failed(any Error)
    }

    /// The trees of `roots` and what they hold, as ``addTreeContents(_:seen:)`` adds them for
    /// each root not in `seen`, with the reading on a second thread: the reader walks the trees
    /// (reading each from the pack, which resolves delta chains, and deciding which subtrees are
    /// new, with a set of its own that starts as `seen`) and hands each tree's bytes and its new
    /// subtrees on in walk order; this thread reads the entries again for the blobs, looks them
    /// up in `seen`, makes the paths and their hashes and adds the objects. Both go depth first
    /// in entry order, so the objects and their order are those of the walk on one thread (for
    /// any tree whose entries name trees as trees and blobs as blobs: a tree id listed with a
    /// blob's mode, which `git fsck` reports, could be walked where the one thread skips it).
    /// Returns false, having done nothing, if the thread cannot be started.
    private mutating func addTreesReadAhead(_ roots: [ObjectID], seen: inout ObjectIDTable) throws -> Bool {
        // At most this many bytes of trees read ahead.
        let queue = BlockingQueue<Transferred<[TreeRead]>>(capacity: 16 << 20)
        let reader = Transferred((try database.reopened(readWindows: true), seen))
        guard
            let thread = try? JoinableThread({
                Self.readTrees(roots, database: reader.value.0, seen: reader.value.1, into: queue)
            })
        else { return false }
        defer {
            queue.close(discardingItems: true)
            thread.join()
        }
        var prefixes: [[UInt8]] = []
        var subtreePaths: [[UInt8]] = []
        var references = TreeReferences<[UInt8]>()
        while let batch = queue.take() {
            for read in batch.value {
                switch read {
                case .failed(let error):
                    throw error
                case .root(let root):
                    seen.insert(root)
                    try addPreferredBases(path: [])
                    objects.append(Entry(id: root, type: .tree))
                    prefixes = [[]]
                case .tree(let tree, let data, let newSubtrees):
                    // Both threads read the same bytes the same way: neither check fails unless
                    // that stops being so.
                    guard let prefix = prefixes.popLast() else { throw PushPackError.malformed(tree) }
                    var next = 0
                    subtreePaths.removeAll(keepingCapacity: true)
                    let reference = references.swap(data, at: prefix)
                    var ends: [UInt32] = []
                    ends.reserveCapacity(reference.ends.count + 4)
                    try ObjectLinks.forEachTreeEntry(
                        data, format: database.format, skipping: reference.bytes, referenceEnds: reference.ends,
                        ends: &ends
                    ) { name, link in
                        if link.type == .tree {
                            // The reader's set says which trees are new; a tree named twice in one
                            // tree is new at its first entry only.
                            guard next < newSubtrees.count, newSubtrees[next] == link.id else { return }
                            next += 1
                            seen.insert(link.id)
                        } else {
                            guard seen.insert(link.id).inserted else { return }
                        }
                        let path = Self.childPath(prefix, data[name])
                        try addPreferredBases(path: path)
                        objects.append(Entry(id: link.id, type: link.type, nameHash: ObjectLinks.nameHash(path)))
                        if link.type == .tree { subtreePaths.append(path) }
                    }
                    guard next == newSubtrees.count else { throw PushPackError.malformed(tree) }
                    references.recordEnds(ends)
                    prefixes += subtreePaths.reversed()
                }
            }
        }
        return true
    }

    /// The tree reader of ``addTreesReadAhead(_:seen:)``: walks the trees of `roots` depth first
    /// in entry order, skipping the trees in `seen`, and puts each with its new subtrees into
    /// `queue` (in batches), then closes it; stops early if the queue is closed. Entries the
    /// last tree read at the same path holds are not looked up (``TreeReferences``), and the packs
    /// are read through windows (the trees lie in the pack mostly in the order they are read).
    private static func readTrees(
        _ roots: [ObjectID], database: ObjectDatabase, seen: ObjectIDTable,
        into queue: BlockingQueue<Transferred<[TreeRead]>>
    ) {
        var seen = seen
        var batch: [TreeRead] = []
        var batchBytes = 0
        func flush() -> Bool {
            defer {
                batch = []
                batchBytes = 0
            }
            return batch.isEmpty || queue.put(Transferred(batch), weight: max(1, batchBytes))
        }
        defer { queue.close() }
        do {
            // Each tree with a hash of its path, for the trees to compare with (`TreeReferences`).
            var stack: [(ObjectID, UInt64)] = []
            var references = TreeReferences<UInt64>()
            for root in roots where seen.insert(root).inserted {
                batch.append(.root(root))
                stack.append((root, 0))
                while let (tree, pathHash) = stack.popLast() {
                    guard let object = try database.object(tree) else { throw PushPackError.missingObject(tree) }
                    guard object.type == .tree else { throw PushPackError.malformed(tree) }
                    var found: [ObjectID] = []
                    var foundPaths: [UInt64] = []
                    let data = object.data
                    let reference = references.swap(data, at: pathHash)
                    var ends: [UInt32] = []
                    ends.reserveCapacity(reference.ends.count + 4)
                    try ObjectLinks.forEachTreeEntry(
                        data, format: database.format, treesOnly: true, skipping: reference.bytes,
                        referenceEnds: reference.ends, ends: &ends
                    ) { name, link in
                        guard seen.insert(link.id).inserted else { return }
                        found.append(link.id)
                        // FNV-1a over the name, from the parent's hash.
                        var hash = (pathHash ^ 0x2f) &* 0x100_0000_01b3
                        for index in name { hash = (hash ^ UInt64(data[index])) &* 0x100_0000_01b3 }
                        foundPaths.append(hash)
                    }
                    references.recordEnds(ends)
                    for (id, path) in zip(found, foundPaths).reversed() { stack.append((id, path)) }
                    batch.append(.tree(id: tree, data: object.data, newSubtrees: found))
                    batchBytes += object.data.count
                    if batch.count >= 512 || batchBytes >= 1 << 20 {
                        guard flush() else { return }
                    }
                }
            }
        } catch {
            batch.append(.failed(error))
        }
        _ = flush()
    }

    private struct Commit {
        var id: ObjectID
        var tree: ObjectID
        var parents: [ObjectID]
        var time: Int64
    }

    /// The commits to send, newest first; the trees of the boundary commits (the remote's tips
    /// and the parents the remote has of commits sent); the trees of those parents alone.
    private mutating func walkCommits(_ tips: [(ObjectID, Bool)]) throws -> ([Commit], [ObjectID], [ObjectID]) {
        var parsed: [ObjectID: Commit] = [:]
        var uninteresting: Set<ObjectID> = []
        var queued: Set<ObjectID> = []
        var heap = CommitHeap()
        var order: [ObjectID] = []

        func load(_ id: ObjectID) throws -> Commit {
            if let commit = parsed[id] { return commit }
            // A commit the graph lists is not read; one it does not (newer than the graph) or
            // whose record it cannot vouch for is.
            if let found = graph?.commit(id) {
                let commit = Commit(id: id, tree: found.tree, parents: found.parents, time: found.committerTime)
                parsed[id] = commit
                return commit
            }
            guard let object = try database.object(id) else { throw PushPackError.missingObject(id) }
            commitObjectsRead += 1
            guard object.type == .commit else { throw PushPackError.malformed(id) }
            let links = try ObjectLinks.links(of: .commit, data: object.data, format: database.format)
            let summary = CommitSummary(commitData: object.data, format: database.format)
            let commit = Commit(
                id: id, tree: links[0].id, parents: links.dropFirst().map(\.id), time: summary?.committerTime ?? 0)
            parsed[id] = commit
            return commit
        }
        /// Marks `id` and, through commits already read, its ancestors as the remote's.
        func markUninteresting(_ id: ObjectID) {
            var stack = [id]
            while let next = stack.popLast() {
                guard uninteresting.insert(next).inserted else { continue }
                if let commit = parsed[next] { stack += commit.parents }
            }
        }

        for (id, excluded) in tips {
            let commit = try load(id)
            if excluded { markUninteresting(id) }
            if queued.insert(id).inserted { heap.push(commit.id, time: commit.time) }
        }
        var slop = Self.slop
        var interestingQueued = tips.filter { !$0.1 }.count
        while let id = heap.pop() {
            let commit = try load(id)
            let isUninteresting = uninteresting.contains(id)
            if !isUninteresting { interestingQueued -= 1 }
            if isUninteresting {
                for parent in commit.parents { markUninteresting(parent) }
            } else {
                order.append(id)
            }
            for parent in commit.parents where queued.insert(parent).inserted {
                let parentCommit = try load(parent)
                if uninteresting.contains(parent) { markUninteresting(parent) }
                if !uninteresting.contains(parent) { interestingQueued += 1 }
                heap.push(parent, time: parentCommit.time)
            }
            if heap.allUninteresting(uninteresting) {
                slop -= 1
                if slop <= 0 { break }
            } else {
                slop = Self.slop
            }
        }
        _ = interestingQueued
        let commits = order.filter { !uninteresting.contains($0) }.map { parsed[$0]! }
        var edges: [ObjectID] = []
        var parentEdges: [ObjectID] = []
        var edgeSeen: Set<ObjectID> = []
        var parentSeen: Set<ObjectID> = []
        for (id, excluded) in tips where excluded && edgeSeen.insert(id).inserted { edges.append(parsed[id]!.tree) }
        for commit in commits {
            for parent in commit.parents where uninteresting.contains(parent) {
                let tree = try load(parent).tree
                if parentSeen.insert(tree).inserted { parentEdges.append(tree) }
                if edgeSeen.insert(parent).inserted { edges.append(tree) }
            }
        }
        return (commits, edges, parentEdges)
    }

    /// Marks the tree `id` and everything in it as the remote's.
    private mutating func markTreeOnRemote(_ id: ObjectID) throws {
        guard remoteHas.insert(id).inserted else { return }
        var stack = [id]
        while let tree = stack.popLast() {
            guard let object = try database.object(tree) else { continue }
            for link in try ObjectLinks.links(of: .tree, data: object.data, format: database.format)
            where remoteHas.insert(link.id).inserted {
                if link.type == .tree { stack.append(link.id) }
            }
        }
    }

    /// Adds what the tree `id` holds, depth first in entry order, skipping what `seen` has;
    /// each with the hash of its path.
    private mutating func addTreeContents(_ id: ObjectID, seen: inout ObjectIDTable) throws {
        var stack: [(ObjectID, [UInt8])] = [(id, [])]
        var subtrees: [(ObjectID, [UInt8])] = []
        while let (tree, prefix) = stack.popLast() {
            guard let object = try database.object(tree) else { throw PushPackError.missingObject(tree) }
            guard object.type == .tree else { throw PushPackError.malformed(tree) }
            let data = object.data
            subtrees.removeAll(keepingCapacity: true)
            // Entries are read in place; a path is made only for an object not seen before.
            let reference = treeReferences.swap(data, at: prefix)
            var ends: [UInt32] = []
            ends.reserveCapacity(reference.ends.count + 4)
            try ObjectLinks.forEachTreeEntry(
                data, format: database.format, skipping: reference.bytes, referenceEnds: reference.ends, ends: &ends
            ) { name, link in
                guard seen.insert(link.id).inserted else { return }
                let path = Self.childPath(prefix, data[name])
                try addPreferredBases(path: path)
                objects.append(Entry(id: link.id, type: link.type, nameHash: ObjectLinks.nameHash(path)))
                if link.type == .tree { subtrees.append((link.id, path)) }
            }
            treeReferences.recordEnds(ends)
            stack += subtrees.reversed()
        }
    }

    /// For a thin pack, the objects at `path` in the boundary trees become preferred bases (the
    /// first time the path is met), as git's `add_preferred_base_object` picks them.
    private mutating func addPreferredBases(path: [UInt8]) throws {
        // A cut path (see ``childPath(_:_:)``) is looked for in no boundary tree.
        guard !baseTrees.isEmpty, path.first != 0, basePathsDone.insert(path).inserted else { return }
        let hash = ObjectLinks.nameHash(path)
        let components = path.split(separator: 0x2f, omittingEmptySubsequences: false)
        for root in baseTrees {
            var current = ObjectLinks.Link(id: root, type: .tree)
            var found = true
            if !path.isEmpty {
                for component in components {
                    guard current.type == .tree, let next = try baseTreeEntry(current.id, component) else {
                        found = false
                        break
                    }
                    current = next
                }
            }
            if found && preferredSeen.insert(current.id).inserted {
                preferredBases.append(Entry(id: current.id, type: current.type, nameHash: hash))
            }
        }
    }

    private mutating func baseTreeEntry(_ tree: ObjectID, _ name: ArraySlice<UInt8>) throws -> ObjectLinks.Link? {
        if let entries = baseTreeEntries[tree] { return entries[name] }
        guard let object = try database.object(tree), object.type == .tree else { return nil }
        var entries: [ArraySlice<UInt8>: ObjectLinks.Link] = [:]
        for (entryName, link) in try ObjectLinks.namedTreeLinks(object.data, format: database.format) {
            entries[ArraySlice(Array(entryName))] = link
        }
        baseTreeEntries[tree] = entries
        return entries[name]
    }
}

/// A pack for a push cannot be made from the local repository.
public enum PushPackError: GitWireError, Hashable, Sendable {
    /// An object the push needs is not in the repository.
    case missingObject(ObjectID)
    /// An object cannot be read as its type says (a malformed commit, tree or tag).
    case malformed(ObjectID)
    /// A stored object cannot be reused or read: its pack entry is damaged (an offset delta
    /// whose base offset is not the start of an entry). Nothing of the pack is sent.
    case corruptPacked(ObjectID, packPath: String)

    /// ``GitWireErrorKind/pack``.
    public var kind: GitWireErrorKind { .pack }

    /// The text shown to users and in logs.
    public var description: String {
        switch self {
        case .missingObject(let id): return "bad object \(id.hex)"
        case .malformed(let id): return "object \(id.hex) is corrupt"
        case .corruptPacked(let id, let path): return "packed object \(id.hex) (stored in \(path)) is corrupt"
        }
    }
}
