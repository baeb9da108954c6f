import GitWireCore

/// The priority queue and marks of git's `paint_down_to_common`, for
/// ``RepositoryFetch/isAncestor(_:of:graph:)``: commits newest committer date first, each with
/// the sides that reached it, and a count of queued entries whose commit is not stale, so that
/// the walk's end (git's `queue_has_nonstale`) is known without scanning the queue.
struct AncestryPaint {
    /// Reached from the old tip.
    static let oldSide: UInt8 = 1
    /// Reached from the new tip.
    static let newSide: UInt8 = 2
    /// Both sides.
    static let bothSides: UInt8 = 3
    /// An ancestor of a commit both sides reach: no longer worth walking for its own sake.
    static let stale: UInt8 = 4

    private var flags: [ObjectID: UInt8] = [:]
    private var queued: [ObjectID: Int] = [:]
    private var summaries: [ObjectID: CommitSummary] = [:]
    private var heap = CommitHeap()
    private var nonStale = 0

    /// Whether painting `id` with `marks` adds a mark it does not have yet.
    func needs(_ id: ObjectID, _ marks: UInt8) -> Bool {
        (flags[id, default: 0] & marks) != marks
    }

    /// Adds `marks` to `id` and queues it.
    mutating func add(_ id: ObjectID, side marks: UInt8, summary: CommitSummary) {
        let before = flags[id, default: 0]
        let after = before | marks
        flags[id] = after
        if before & Self.stale == 0 && after & Self.stale != 0 {
            nonStale -= queued[id, default: 0]  // its entries already queued are stale now
        }
        if after & Self.stale == 0 { nonStale += 1 }
        queued[id, default: 0] += 1
        summaries[id] = summary
        heap.push(id, time: summary.committerTime)
    }

    /// The marks and summary of the next commit to walk, or nil when every queued commit is stale.
    mutating func next() -> (UInt8, CommitSummary)? {
        while nonStale > 0, let id = heap.pop() {
            let count = queued[id, default: 1] - 1
            if count == 0 { queued[id] = nil } else { queued[id] = count }
            let marks = flags[id, default: 0]
            if marks & Self.stale == 0 { nonStale -= 1 }
            guard let summary = summaries[id] else { continue }
            return (marks & (Self.bothSides | Self.stale), summary)
        }
        return nil
    }
}
