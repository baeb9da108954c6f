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
final class ProgressCounter: Sendable {
    private let phase: PackProgress.Phase
    private let total: Int
    private let handler: PackProgressHandler?
    private let completed = Atomic<Int>(0)
    private let reportedPercent = Atomic<Int>(-1)
    /// Held while the handler runs; holds the highest count handed to it, so that a thread that
    /// lost the race to the lock cannot report an older count after a newer one.
    private let calling = Locked<Int>(-1)

    init(phase: PackProgress.Phase, total: Int, handler: PackProgressHandler?) {
        self.phase = phase
        self.total = total
        self.handler = handler
    }

    /// Adds one completed item; `bytes` is the pack bytes read so far, when known.
    func advance(bytes: UInt64 = 0) {
        let done = completed.add(1, ordering: .relaxed).newValue
        guard let handler else { return }
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
        calling.withLock { reported in
            guard done > reported else { return }
            reported = done
            handler(PackProgress(phase: phase, completed: done, total: total, bytes: bytes))
        }
    }

    /// Reports that the work starts, at zero, as git's index-pack does before it resolves its
    /// first delta (`Resolving deltas:   0% (0/n)`).
    func start() {
        guard let handler else { return }
        reportedPercent.store(0, ordering: .relaxed)
        calling.withLock { reported in
            reported = max(reported, 0)
            handler(PackProgress(phase: phase, completed: 0, total: total, bytes: 0))
        }
    }

    /// Reports the count again, with `bytes` (the whole pack once it has all been read).
    func report(bytes: UInt64) {
        guard let handler else { return }
        calling.withLock { reported in
            let done = completed.load(ordering: .relaxed)
            reported = max(reported, done)
            handler(PackProgress(phase: phase, completed: done, total: total, bytes: bytes))
        }
    }

    /// The number of items completed.
    var count: Int { completed.load(ordering: .relaxed) }
}
