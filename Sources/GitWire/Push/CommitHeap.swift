import GitWireCore

/// Commits by committer date, newest first (ties: first pushed first).
struct CommitHeap {
    private var items: [(time: Int64, sequence: Int, id: ObjectID)] = []
    private var sequence = 0

    mutating func push(_ id: ObjectID, time: Int64) {
        items.append((time, sequence, id))
        sequence += 1
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard before(items[child], items[parent]) else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> ObjectID? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let top = items.removeLast()
        var parent = 0
        while true {
            let left = parent * 2 + 1
            let right = left + 1
            var best = parent
            if left < items.count && before(items[left], items[best]) { best = left }
            if right < items.count && before(items[right], items[best]) { best = right }
            guard best != parent else { break }
            items.swapAt(parent, best)
            parent = best
        }
        return top.id
    }

    func allUninteresting(_ uninteresting: Set<ObjectID>) -> Bool {
        items.allSatisfy { uninteresting.contains($0.id) }
    }

    private func before(
        _ a: (time: Int64, sequence: Int, id: ObjectID), _ b: (time: Int64, sequence: Int, id: ObjectID)
    )
        -> Bool
    {
        a.time != b.time ? a.time > b.time : a.sequence < b.sequence
    }
}
