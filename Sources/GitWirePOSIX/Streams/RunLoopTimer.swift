import GitWireCore

/// A one-shot or repeating timer in an ``EpollRunLoop``. Its action runs on the loop's thread.
public final class RunLoopTimer {
    /// When the timer fires next.
    public internal(set) var fireDate: ContinuousClock.Instant
    /// The interval between firings of a repeating timer; nil for one shot.
    public let interval: Duration?
    /// Whether the timer will still fire.
    public private(set) var isValid = true
    package let action: (RunLoopTimer) -> Void
    package let sequence: UInt64
    /// Where the timer stands in its loop's heap; -1 when it is not in it.
    var heapIndex = -1
    /// The loop whose heap holds the timer, so that invalidating takes it out at once.
    weak var loop: EpollRunLoop?

    package init(
        fireDate: ContinuousClock.Instant, interval: Duration?, sequence: UInt64,
        action: @escaping (RunLoopTimer) -> Void
    ) {
        self.fireDate = fireDate
        self.interval = interval
        self.sequence = sequence
        self.action = action
    }

    /// Stops the timer; it will not fire again, and it leaves its loop at once. Safe to call from
    /// its own action.
    public func invalidate() {
        isValid = false
        loop?.removeTimer(self)
    }
}

@available(*, unavailable)
extension RunLoopTimer: Sendable {}

/// Timers ordered by fire date (then by creation), as a binary min-heap that knows where each
/// timer stands, so an invalidated timer is removed at once instead of waiting for its date.
package struct TimerQueue {
    private var heap: [RunLoopTimer] = []

    package init() {}

    /// The number of timers waiting.
    package var count: Int { heap.count }

    /// The earliest fire date.
    package func nextFireDate() -> ContinuousClock.Instant? { heap.first?.fireDate }

    package mutating func push(_ timer: RunLoopTimer) {
        heap.append(timer)
        timer.heapIndex = heap.count - 1
        siftUp(heap.count - 1)
    }

    /// Removes and returns the earliest timer due at or before `now`.
    package mutating func popDue(now: ContinuousClock.Instant) -> RunLoopTimer? {
        guard let first = heap.first, first.fireDate <= now else { return nil }
        remove(at: 0)
        return first
    }

    /// Takes `timer` out, if it is in the heap.
    package mutating func remove(_ timer: RunLoopTimer) {
        let index = timer.heapIndex
        guard index >= 0, index < heap.count, heap[index] === timer else { return }
        remove(at: index)
    }

    private mutating func remove(at index: Int) {
        let removed = heap[index]
        let last = heap.count - 1
        if index != last { swapAt(index, last) }
        heap.removeLast()
        removed.heapIndex = -1
        guard index < heap.count else { return }
        siftDown(index)
        siftUp(index)
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            if !Self.precedes(heap[child], heap[parent]) { break }
            swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count && Self.precedes(heap[left], heap[smallest]) { smallest = left }
            if right < heap.count && Self.precedes(heap[right], heap[smallest]) { smallest = right }
            if smallest == parent { return }
            swapAt(parent, smallest)
            parent = smallest
        }
    }

    private mutating func swapAt(_ a: Int, _ b: Int) {
        heap.swapAt(a, b)
        heap[a].heapIndex = a
        heap[b].heapIndex = b
    }

    private static func precedes(_ a: RunLoopTimer, _ b: RunLoopTimer) -> Bool {
        a.fireDate != b.fireDate ? a.fireDate < b.fireDate : a.sequence < b.sequence
    }
}
