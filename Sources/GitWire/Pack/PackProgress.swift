import Synchronization

/// How far indexing a pack has come, for a git-style progress display.
public struct PackProgress: Sendable, Equatable {
    /// The two phases of indexing.
    public enum Phase: Sendable, Equatable {
        /// Reading entries ("Receiving objects" / "Indexing objects").
        case receiving
        /// Resolving deltas ("Resolving deltas").
        case resolving
    }

    /// The phase.
    public var phase: Phase
    /// Objects read or deltas resolved so far.
    public var completed: Int
    /// Objects the pack announces, or deltas it holds.
    public var total: Int
    /// Pack bytes read so far. Once the whole pack is read, the reading phase is reported once
    /// more with the same count and the pack's full size (its checksum included).
    public var bytes: UInt64
}

/// Receives ``PackProgress`` reports; called from any thread, one call at a time.
public typealias PackProgressHandler = @Sendable (PackProgress) -> Void

/// Counts completed work from any number of threads and calls the handler whenever the
/// percentage changes, and once more at the end.
///
/// The handler is the caller's code, so it never runs under a lock: reports are queued under the
/// lock, and the first thread to find no one calling the handler calls it for each queued report,
/// oldest first, outside the lock (another thread's reports meanwhile join the queue and are
/// handed on by the calling thread before it returns). So the handler runs on one thread at a
/// time, and its counts never go backwards.
final class ProgressCounter: Sendable {
    private let phase: PackProgress.Phase
    private let total: Int
    private let handler: PackProgressHandler?
    private let completed = Atomic<Int>(0)
    private let reportedPercent = Atomic<Int>(-1)
    private let delivery = Locked(Delivery())

    private struct Delivery {
        /// Whether a thread is handing reports to the handler.
        var calling = false
        /// Reports waiting for it, oldest first.
        var queue: [PackProgress] = []
        /// The highest count queued, so that a thread that lost the race to the lock cannot queue
        /// an older count after a newer one.
        var reported = -1
    }

    init(phase: PackProgress.Phase, total: Int, handler: PackProgressHandler?) {
        self.phase = phase
        self.total = total
        self.handler = handler
    }

    /// Adds one completed item; `bytes` is the pack bytes read so far, when known.
    func advance(bytes: UInt64 = 0) {
        let done = completed.add(1, ordering: .relaxed).newValue
        guard handler != nil else { return }
        let percent = total > 0 ? done * 100 / total : 100
        // Claim the new percentage; a thread that lost the race to a lower one tries again, so
        // that the highest (100% at the end) is always reported.
        var last = reportedPercent.load(ordering: .relaxed)
        while true {
            guard percent > last else { return }
            let (exchanged, found) = reportedPercent.compareExchange(
                expected: last, desired: percent, ordering: .relaxed)
            if exchanged { break }
            last = found
        }
        deliver { reported in
            guard done > reported else { return nil }
            return PackProgress(phase: phase, completed: done, total: total, bytes: bytes)
        }
    }

    /// Reports that the work starts, at zero, as git's index-pack does before it resolves its
    /// first delta (`Resolving deltas:   0% (0/n)`).
    func start() {
        guard handler != nil else { return }
        reportedPercent.store(0, ordering: .relaxed)
        deliver { _ in PackProgress(phase: phase, completed: 0, total: total, bytes: 0) }
    }

    /// Reports the count again, with `bytes` (the whole pack once it has all been read).
    func report(bytes: UInt64) {
        guard handler != nil else { return }
        deliver { reported in
            PackProgress(phase: phase, completed: max(reported, count), total: total, bytes: bytes)
        }
    }

    /// Queues the report `make` builds from the highest count queued so far (nil: none), then
    /// hands the queue to the handler unless another thread is doing so.
    private func deliver(_ make: (Int) -> PackProgress?) {
        guard let handler else { return }
        var next = delivery.withLock { delivery -> PackProgress? in
            guard let progress = make(delivery.reported) else { return nil }
            delivery.reported = max(delivery.reported, progress.completed)
            delivery.queue.append(progress)
            guard !delivery.calling else { return nil }
            delivery.calling = true
            return delivery.queue.removeFirst()
        }
        while let progress = next {
            handler(progress)
            next = delivery.withLock { delivery in
                if delivery.queue.isEmpty {
                    delivery.calling = false
                    return nil
                }
                return delivery.queue.removeFirst()
            }
        }
    }

    /// The number of items completed.
    var count: Int { completed.load(ordering: .relaxed) }
}
