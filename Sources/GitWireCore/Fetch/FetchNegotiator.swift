/// Commits waiting to be visited, newest committer time first; among equal times, first in
/// first out (as git's `prio_queue` with its insertion counter).
struct CommitQueue: Sendable {
    private struct Entry: Sendable {
        var time: Int64
        var order: Int
        var id: ObjectID
    }

    private var heap: [Entry] = []
    private var counter = 0

    var isEmpty: Bool { heap.isEmpty }

    private static func precedes(_ a: Entry, _ b: Entry) -> Bool {
        a.time != b.time ? a.time > b.time : a.order < b.order
    }

    mutating func push(_ id: ObjectID, time: Int64) {
        heap.append(Entry(time: time, order: counter, id: id))
        counter += 1
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.precedes(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> ObjectID? {
        guard let first = heap.first else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var parent = 0
            while true {
                let left = parent * 2 + 1
                guard left < heap.count else { break }
                var best = left
                if left + 1 < heap.count && Self.precedes(heap[left + 1], heap[left]) { best = left + 1 }
                guard Self.precedes(heap[best], heap[parent]) else { break }
                heap.swapAt(best, parent)
                parent = best
            }
        }
        return first.id
    }
}

/// The local commits the negotiation has looked at: what the graph says about each (looked up
/// once) and the marks the walk puts on them.
struct NegotiationCommits {
    struct Marks: OptionSet, Sendable {
        let rawValue: UInt8
        /// The server has it (acknowledged, or an ancestor of something it has).
        static let common = Marks(rawValue: 1 << 0)
        /// A remote ref points at it and we have it: say `have`, skip its ancestors.
        static let commonRef = Marks(rawValue: 1 << 1)
        /// Queued (or looked at) by the walk.
        static let seen = Marks(rawValue: 1 << 2)
        /// Taken out of the queue.
        static let popped = Marks(rawValue: 1 << 3)
        /// Reachable from a local tip (git's `COMPLETE`): never wanted.
        static let complete = Marks(rawValue: 1 << 4)
    }

    private struct Node: Sendable {
        var marks: Marks = []
        var summary: CommitSummary?
        var lookedUp = false
    }

    let graph: any CommitGraph
    private var nodes: [ObjectID: Node] = [:]

    init(graph: any CommitGraph) { self.graph = graph }

    func marks(_ id: ObjectID) -> Marks { nodes[id]?.marks ?? [] }

    mutating func insert(_ marks: Marks, on id: ObjectID) { nodes[id, default: Node()].marks.formUnion(marks) }

    /// The commit, looked up in the graph the first time it is asked for.
    mutating func summary(_ id: ObjectID) -> CommitSummary? {
        if let node = nodes[id], node.lookedUp { return node.summary }
        let summary = graph.commit(id)
        nodes[id, default: Node()].summary = summary
        nodes[id, default: Node()].lookedUp = true
        return summary
    }
}

/// git's default fetch negotiator (`negotiator/default.c`), in Swift: walks the local history
/// from the tips, newest commit first, and offers each commit that is not known to be common;
/// an acknowledgment marks a commit and all its ancestors common, so they are not offered.
struct DefaultNegotiator {
    private(set) var commits: NegotiationCommits
    private var queue = CommitQueue()
    private var nonCommonCount = 0

    init(graph: any CommitGraph) { commits = NegotiationCommits(graph: graph) }

    /// Marks the commits a fetch never needs to want (git's `mark_complete_and_common_ref`, the
    /// part that walks local history): the local tips, and their ancestors down to the newest
    /// commit time among the remote refs we already have. Then tells the negotiator which
    /// remote refs point at such commits. Skipped when deepening, as in git.
    mutating func markComplete(localTips: [ObjectID], remoteRefs: [Ref]) {
        var cutoff: Int64 = 0
        for ref in remoteRefs {
            guard let id = ref.objectID, let commit = commits.summary(id) else { continue }
            if cutoff == 0 || cutoff < commit.committerTime { cutoff = commit.committerTime }
        }
        // git prepends each tip to a list, then sorts it by date (stable, newest first).
        var list: [(id: ObjectID, time: Int64)] = []
        for id in localTips {
            // As git's mark_complete: the tags on the way to the commit are complete too.
            let (tags, tip) = peel(id)
            for tag in tags { commits.insert(.complete, on: tag) }
            guard let commit = commits.summary(tip), !commits.marks(tip).contains(.complete) else { continue }
            commits.insert(.complete, on: tip)
            list.insert((tip, commit.committerTime), at: 0)
        }
        list = stableSortedNewestFirst(list)
        if cutoff != 0 {
            var head = 0
            while head < list.count && cutoff <= list[head].time {
                let popped = list[head].id
                head += 1
                for parent in commits.summary(popped)?.parents ?? [] {
                    guard let commit = commits.summary(parent), !commits.marks(parent).contains(.complete) else {
                        continue
                    }
                    commits.insert(.complete, on: parent)
                    // After the entries of the same time, as `commit_list_insert_by_date`.
                    let place = partitionPoint(in: head..<list.count) { list[$0].time >= commit.committerTime }
                    list.insert((parent, commit.committerTime), at: place)
                }
            }
        }
        // Remote refs (sorted by name, as git sorts them) at commits we have completely are
        // known to be common: offered once, their ancestors never.
        let sorted = remoteRefs.enumerated().sorted { a, b in
            a.element.nameBytes.lexicographicallyPrecedes(b.element.nameBytes)
                || (a.element.nameBytes == b.element.nameBytes && a.offset < b.offset)
        }
        for (_, ref) in sorted {
            guard let id = ref.peeled ?? ref.objectID, commits.marks(id).contains(.complete) else { continue }
            knownCommon(id)
        }
    }

    private func stableSortedNewestFirst(_ list: [(id: ObjectID, time: Int64)]) -> [(id: ObjectID, time: Int64)] {
        list.enumerated().sorted { a, b in
            a.element.time != b.element.time ? a.element.time > b.element.time : a.offset < b.offset
        }.map(\.element)
    }

    /// Whether `id` is a local commit reachable from the tips (not worth wanting).
    func isComplete(_ id: ObjectID) -> Bool { commits.marks(id).contains(.complete) }

    /// Starts the walk at a local tip (an annotated tag at the commit it peels to).
    mutating func addTip(_ id: ObjectID) { push(peel(id).target, marks: .seen) }

    /// What `id` peels to through annotated tags (`id` itself when it is no tag), and the tags
    /// on the way. A chain is followed at most ``TagChain/longest`` tags deep, as push's.
    private func peel(_ id: ObjectID) -> (tags: [ObjectID], target: ObjectID) {
        var tags: [ObjectID] = []
        var current = id
        while tags.count < TagChain.longest, let target = commits.graph.tagTarget(current) {
            tags.append(current)
            current = target
        }
        return (tags, current)
    }

    private mutating func knownCommon(_ id: ObjectID) {
        guard !commits.marks(id).contains(.seen) else { return }
        push(id, marks: [.commonRef, .seen])
        markCommon(id, ancestorsOnly: true)
    }

    private mutating func push(_ id: ObjectID, marks: Marks) {
        guard commits.marks(id).isDisjoint(with: marks) else { return }
        commits.insert(marks, on: id)
        guard let commit = commits.summary(id) else { return }
        queue.push(id, time: commit.committerTime)
        if !commits.marks(id).contains(.common) { nonCommonCount += 1 }
    }

    private typealias Marks = NegotiationCommits.Marks

    /// Marks `id` (unless `ancestorsOnly`) and its ancestors common: git's recursive
    /// `mark_common`, with an explicit stack in the same (depth-first, first parent first) order.
    private mutating func markCommon(_ id: ObjectID, ancestorsOnly: Bool) {
        var stack = [(id, ancestorsOnly)]
        while let (current, onlyAncestors) = stack.popLast() {
            let marks = commits.marks(current)
            guard !marks.contains(.common) else { continue }
            if !onlyAncestors { commits.insert(.common, on: current) }
            if !marks.contains(.seen) {
                push(current, marks: .seen)
            } else {
                if !onlyAncestors && !marks.contains(.popped) { nonCommonCount -= 1 }
                for parent in (commits.summary(current)?.parents ?? []).reversed() { stack.append((parent, false)) }
            }
        }
    }

    /// The next commit to offer with `have`, nil when there is nothing left worth offering.
    mutating func next() -> ObjectID? {
        while !queue.isEmpty && nonCommonCount != 0 {
            guard let id = queue.pop() else { return nil }
            let parents = commits.summary(id)?.parents ?? []
            let marks = commits.marks(id)
            commits.insert(.popped, on: id)
            if !marks.contains(.common) { nonCommonCount -= 1 }
            let mark: Marks
            let offer: Bool
            if marks.contains(.common) {
                mark = [.common, .seen]
                offer = false
            } else if marks.contains(.commonRef) {
                mark = [.common, .seen]
                offer = true
            } else {
                mark = .seen
                offer = true
            }
            for parent in parents {
                if !commits.marks(parent).contains(.seen) { push(parent, marks: mark) }
                if mark.contains(.common) { markCommon(parent, ancestorsOnly: true) }
            }
            if offer { return id }
        }
        return nil
    }

    /// The server acknowledged `id`: it and its ancestors are common. Returns whether it was
    /// known to be common before.
    mutating func acknowledge(_ id: ObjectID) -> Bool {
        let wasCommon = commits.marks(id).contains(.common)
        markCommon(id, ancestorsOnly: false)
        return wasCommon
    }
}
