/// The part of the first pass over a pack that does not decide where its entries end, on a
/// second thread: the pack's checksum over every byte, and zlib's reading of the whole objects'
/// streams whose end libdeflate found (zlib refuses some streams libdeflate accepts, and it is
/// zlib that says what a valid stream is, as in git; deltas' streams are read by zlib when
/// resolution inflates them). The parsing thread hands work over in order and asks for the
/// outcome at the end.
final class FirstPassHelper {
    /// An entry's zlib stream, whole, where the pack holds it, and the size it must inflate to.
    struct CheckedStream: Sendable {
        var bytes: ArraySlice<UInt8>
        var offset: UInt64
        var size: UInt64
    }

    private enum Work: Sendable {
        case packBytes(ArraySlice<UInt8>)
        case streams([CheckedStream])
    }

    /// What the helper found: the pack's checksum so far and the first stream zlib refused.
    private final class Outcome: Sendable {
        let state: Locked<(hash: ObjectHasher, failure: PackError?)>

        init(format: ObjectFormat) { state = Locked((ObjectHasher(format), nil)) }
    }

    /// Work weighs its bytes: the parser waits to hand over pack bytes while the queue is full (so
    /// the chunks held stay few whatever the two threads' speeds), and checks streams itself
    /// rather than wait. Sized to the pack once its header is read (``sizeQueue(objectCount:)``).
    private let queue = BlockingQueue<Work>(capacity: PackMemorySizing.firstPassQueueBytes(objectCount: 0))
    private let outcome: Outcome
    private var thread: JoinableThread?
    private var pending: [CheckedStream] = []
    private var pendingBytes = 0
    private var finished = false

    /// Starts the helper's thread (the work runs on the caller's thread if none can be started),
    /// hashing the pack in `format`.
    init(format: ObjectFormat) {
        let queue = queue
        let outcome = Outcome(format: format)
        self.outcome = outcome
        thread = try? JoinableThread {
            var hash = ObjectHasher(format)
            var failure: PackError?
            let inflater = try? Inflater()
            while let work = queue.take() {
                Self.perform(work, hash: &hash, failure: &failure, inflater: inflater)
            }
            outcome.state.withLock { $0 = (hash, failure) }
        }
    }

    deinit {
        queue.close(discardingItems: true)
        thread?.join()
    }

    /// Sizes the queue to a pack of `objectCount` objects (``PackMemorySizing``).
    func sizeQueue(objectCount: UInt32) {
        queue.setCapacity(PackMemorySizing.firstPassQueueBytes(objectCount: objectCount))
    }

    /// Adds the next bytes of the pack to its checksum.
    func hashPackBytes(_ bytes: ArraySlice<UInt8>) {
        guard !bytes.isEmpty else { return }
        submit(.packBytes(bytes), weight: bytes.count)
    }

    /// Has zlib read a stream libdeflate read.
    func checkStream(_ stream: CheckedStream) {
        pending.append(stream)
        pendingBytes += stream.bytes.count
        // Each stream keeps the chunk it lies in alive until it is checked: handed over once they
        // span 1 MiB of the pack too, not only once they weigh 1 MiB (with the deltas' streams
        // not checked here, whole objects' streams alone would keep several chunks alive).
        if pending.count >= 512 || pendingBytes >= 1 << 20 || stream.offset - pending[0].offset >= 1 << 20 {
            flushStreams()
        }
    }

    /// Waits for the work handed over; returns the digest of the pack bytes given, ready to
    /// finish, or throws the first stream zlib refused.
    func finish() throws -> ObjectHasher {
        precondition(!finished, "FirstPassHelper.finish called twice")
        finished = true
        flushStreams()
        queue.close()
        thread?.join()
        let (hash, failure) = outcome.state.withLock { $0 }
        // The stream nearest the start of the pack, wherever it was checked.
        let failures = [failure, localFailure].compactMap { $0 }
        if let first = failures.min(by: { $0.offset < $1.offset }) { throw first }
        return hash
    }

    /// What to report when the parsing thread fails with `error`: a stream zlib refused nearer
    /// the start of the pack, if there is one, since reading in order would have stopped there.
    /// Ends the helper's work.
    func earliestFailure(_ error: PackError) -> PackError {
        guard !finished else { return error }
        finished = true
        flushStreams()
        queue.close(discardingItems: false)
        thread?.join()
        let refused = [outcome.state.withLock { $0.failure }, localFailure].compactMap { $0 }
        guard let first = refused.min(by: { $0.offset < $1.offset }), first.offset < error.offset else { return error }
        return first
    }

    /// Hands the pending streams to the helper, or checks them here if its queue is full:
    /// the two threads share that work as their loads allow.
    private func flushStreams() {
        guard !pending.isEmpty else { return }
        defer {
            pending.removeAll(keepingCapacity: true)
            pendingBytes = 0
        }
        if thread != nil && queue.offer(.streams(pending), weight: pendingBytes) { return }
        guard localFailure == nil else { return }
        if localInflater == nil { localInflater = try? Inflater() }
        for stream in pending {
            if let problem = Self.check(stream, inflater: localInflater) {
                localFailure = PackError(offset: stream.offset, .badZlibStream(problem))
                return
            }
        }
    }

    /// The first stream refused when checked on the parsing thread, and the inflater used there.
    private var localFailure: PackError?
    private var localInflater: Inflater?

    private func submit(_ work: Work, weight: Int) {
        if thread != nil {
            queue.put(work, weight: weight)
            return
        }
        outcome.state.withLock { state in
            Self.perform(work, hash: &state.hash, failure: &state.failure, inflater: try? Inflater())
        }
    }

    private static func perform(_ work: Work, hash: inout ObjectHasher, failure: inout PackError?, inflater: Inflater?)
    {
        switch work {
        case .packBytes(let bytes):
            hash.update(bytes)
        case .streams(let streams):
            guard failure == nil else { return }
            for stream in streams {
                if let problem = check(stream, inflater: inflater) {
                    failure = PackError(offset: stream.offset, .badZlibStream(problem))
                    return
                }
            }
        }
    }

    /// What is wrong with the stream as zlib reads it, or nil if it is whole and of its size.
    private static func check(_ stream: CheckedStream, inflater: Inflater?) -> String? {
        guard let inflater else { return "inflateInit failed" }
        inflater.reset()
        var produced: UInt64 = 0
        do {
            let progress = try inflater.inflate(stream.bytes) { produced += UInt64($0.count) }
            guard progress.finished, progress.consumed == stream.bytes.count, produced == stream.size else {
                return "zlib reads the stream otherwise than libdeflate"
            }
            return nil
        } catch {
            return (error as? ZlibError)?.description ?? "\(error)"
        }
    }
}
