/// A one-shot or repeating timer in an ``EpollRunLoop``. Its action runs on the loop's thread.
public final class RunLoopTimer {
    /// When the timer fires next.
    public internal(set) var fireDate: ContinuousClock.Instant
    /// The interval between firings of a repeating timer; nil for one shot.
    public let interval: Duration?
    /// Whether the timer will still fire.
    public private(set) var isValid = true
    let action: (RunLoopTimer) -> Void
    let sequence: UInt64

    init(
        fireDate: ContinuousClock.Instant, interval: Duration?, sequence: UInt64,
        action: @escaping (RunLoopTimer) -> Void
    ) {
        self.fireDate = fireDate
        self.interval = interval
        self.sequence = sequence
        self.action = action
    }

    /// Stops the timer; it will not fire again. Safe to call from its own action.
    public func invalidate() { isValid = false }
}

@available(*, unavailable)
extension RunLoopTimer: Sendable {}

/// Timers ordered by fire date (then by creation), as a binary min-heap.
struct TimerQueue {
    private var heap: [RunLoopTimer] = []

    var isEmpty: Bool { heap.isEmpty }

    /// The earliest fire date of a valid timer, dropping invalidated ones from the top.
    mutating func nextFireDate() -> ContinuousClock.Instant? {
        while let first = heap.first, !first.isValid { _ = pop() }
        return heap.first?.fireDate
    }

    mutating func push(_ timer: RunLoopTimer) {
        heap.append(timer)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            if !Self.precedes(heap[child], heap[parent]) { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest timer due at or before `now`.
    mutating func popDue(now: ContinuousClock.Instant) -> RunLoopTimer? {
        guard let date = nextFireDate(), date <= now else { return nil }
        return pop()
    }

    private mutating func pop() -> RunLoopTimer? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let top = heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count && Self.precedes(heap[left], heap[smallest]) { smallest = left }
            if right < heap.count && Self.precedes(heap[right], heap[smallest]) { smallest = right }
            if smallest == parent { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
        return top
    }

    private static func precedes(_ a: RunLoopTimer, _ b: RunLoopTimer) -> Bool {
        a.fireDate != b.fireDate ? a.fireDate < b.fireDate : a.sequence < b.sequence
    }
}
