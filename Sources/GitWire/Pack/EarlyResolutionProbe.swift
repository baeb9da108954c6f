import Synchronization

/// One entry of a pack as the first pass recorded it, handed to the ``EarlyDeltaResolver``.
struct ReceivedEntry: Sendable {
    /// Where the entry starts in the pack (its header).
    var start: UInt64
    /// Where it ends (the end of its zlib stream).
    var end: UInt64
    /// Its type number in the pack (1–4 whole objects, 6 offset delta, 7 reference delta).
    var typeNumber: UInt8
    /// The entry index of an offset delta's base; -1 for anything else.
    var base: Int32
}

/// For tests: lets a test see how far resolution went before the input ended, and makes the
/// parsing thread wait after each chunk until the resolving thread has caught up, so that the
/// count does not depend on how the threads happened to run; or holds the resolving thread back
/// before its first entry, to show that the parsing thread does not wait for it.
package final class EarlyResolutionProbe: Sendable {
    /// Whether the parsing thread waits for the resolving thread after each chunk.
    package let waitsAfterEachChunk: Bool
    /// The entries the queue to the resolving thread may hold instead of the usual.
    package let queueCapacity: Int?
    /// Holds the resolving thread before its first entry while open (nil: not held).
    private let hold: BlockingQueue<Int>?
    private let state = Locked<(atEndOfInput: Int?, failed: Bool, used: Int, fullAfter: Int?)>((nil, false, 0, nil))

    /// Makes a probe; `waitsAfterEachChunk` makes the count at the end of input deterministic.
    /// With `holdsResolver`, the resolving thread waits before its first entry until
    /// ``releaseResolver()`` or the end of the indexing; `queueCapacity` replaces the queue's.
    package init(waitsAfterEachChunk: Bool = true, holdsResolver: Bool = false, queueCapacity: Int? = nil) {
        self.waitsAfterEachChunk = waitsAfterEachChunk
        self.queueCapacity = queueCapacity
        hold = holdsResolver ? BlockingQueue<Int>(capacity: 1) : nil
    }

    /// Lets a held resolving thread go on.
    package func releaseResolver() { hold?.close() }
    /// Waits while the resolving thread is held.
    func waitIfHeld() { _ = hold?.take() }

    /// The deltas resolved early when the input ended (by its end or by a first-pass error); nil
    /// if the input has not ended or nothing was resolved early.
    package var resolvedAtEndOfInput: Int? { state.withLock { $0.atEndOfInput } }
    /// Whether the resolving thread met an error (its results were then dropped).
    package var resolverFailed: Bool { state.withLock { $0.failed } }
    /// The deltas whose early results the final resolution used.
    package var resultsUsed: Int { state.withLock { $0.used } }

    /// The batches handed to the resolving thread before the queue was found full and the thread
    /// stopped; nil if the queue was never full.
    package var queueFullAfter: Int? { state.withLock { $0.fullAfter } }

    func queueWasFull(_ batchesSent: Int) { state.withLock { $0.fullAfter = batchesSent } }
    func endOfInput(resolved: Int) { state.withLock { $0.atEndOfInput = resolved } }
    func resolverEnded(failed: Bool) { state.withLock { $0.failed = failed } }
    func resultsUsed(_ count: Int) { state.withLock { $0.used = count } }
}
