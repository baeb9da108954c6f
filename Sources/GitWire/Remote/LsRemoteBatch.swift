/// In which order a batch hands out its listings.
public enum LsRemoteBatchOrdering: Hashable, Sendable {
    /// In the order the URLs came in: a finished remote waits only for earlier ones still running.
    case input
    /// As each remote finishes.
    case completion
}

/// How ``LsRemoteBatch`` lists many remotes.
public struct LsRemoteBatchOptions: Sendable {
    /// How many remotes are listed at once (at least 1).
    public var jobs: Int
    /// In which order listings are handed out.
    public var ordering: LsRemoteBatchOrdering
    /// What is asked of each remote: protocol version, `ref-prefix`es, server options.
    public var listing: LsRemoteOptions
    /// Bounds each remote's connect and every wait for its data; nil waits forever.
    public var timeout: Duration?
    /// With ``LsRemoteBatchOrdering/input``: a remote starts only if it is fewer than this many
    /// positions after the oldest listing not yet handed out, so at most this many finished
    /// listings wait for a slow earlier one (never fewer than ``jobs``).
    public var reorderWindow: Int

    /// Makes options. The reorder window defaults to four times `jobs`.
    public init(
        jobs: Int = 64, ordering: LsRemoteBatchOrdering = .input, listing: LsRemoteOptions = LsRemoteOptions(),
        timeout: Duration? = nil, reorderWindow: Int? = nil
    ) {
        self.jobs = max(1, jobs)
        self.ordering = ordering
        self.listing = listing
        self.timeout = timeout
        self.reorderWindow = reorderWindow ?? self.jobs * 4
    }
}

/// One remote's answer in a batch: its refs or why it failed.
public struct BatchListing: Sendable {
    /// The remote's position in the input, from 0.
    public let index: Int
    /// The URL as it was given.
    public let url: String
    /// The listing, or the error that ended this remote's exchange (a ``GitWireError``).
    public let result: Result<RefListing, any Error>

    /// Makes a listing.
    public init(index: Int, url: String, result: Result<RefListing, any Error>) {
        self.index = index
        self.url = url
        self.result = result
    }
}

/// Lists the refs of many remotes concurrently on one ``EpollRunLoop``: at most
/// ``LsRemoteBatchOptions/jobs`` exchanges at a time, each over its own transport (git://,
/// file://, ssh://, http(s)://), each with its own timeout and its own error.
///
/// URLs come in as they are needed (from a sequence given to ``start(_:)``, or pushed with
/// ``add(_:)`` when ``onNeedsInput`` asks), so neither the input nor the results are ever held
/// whole: memory stays bounded by the number of jobs and the reorder window however many URLs
/// there are. A remote that fails (bad URL, refused or reset connection, missing repository,
/// timeout) is handed out as a failed ``BatchListing`` and is never retried; the others go on.
///
/// Everything happens on the loop's thread: make the batch there, and `onResult` and
/// `completion` are called there.
///
/// ```swift
/// let loop = try EpollRunLoop.current()
/// let batch = LsRemoteBatch(LsRemoteBatchOptions(jobs: 32), in: loop) { listing in
///     print(listing.url, (try? listing.result.get().refs.count) ?? -1)
/// } completion: {
///     loop.stop()
/// }
/// batch.start(["git://example.org/a.git", "https://example.org/b.git"])
/// loop.run()
/// ```
public final class LsRemoteBatch {
    /// What the batch was made with.
    public let options: LsRemoteBatchOptions
    private let loop: EpollRunLoop
    private let makeRemote: (String) throws -> Remote
    private var onResult: ((BatchListing) -> Void)?
    private var completion: (() -> Void)?
    /// URLs added but not started, oldest first (from `queueHead` on).
    private var queue: [(index: Int, url: String)?] = []
    private var queueHead = 0
    private var nextIndex = 0
    private var nextDelivery = 0
    private var inputFinished = false
    private var running: [Int: Slot] = [:]
    private var finished: [Int: BatchListing] = [:]
    private var isCancelled = false
    private var isPumping = false
    private var pumpAgain = false

    /// Called on the loop whenever the batch could start another remote and has no URL waiting:
    /// answer with ``add(_:)`` (as many URLs as are at hand), ``finishInput()``, or nothing
    /// (then add later; the batch waits). ``start(_:)`` sets it to read from a sequence.
    public var onNeedsInput: (() -> Void)?

    /// While true, no new remote starts; those running finish and are handed out. For a
    /// consumer that cannot keep up.
    public var isSuspended = false {
        didSet { if !isSuspended { pump() } }
    }

    /// Makes a batch on `loop`. `makeRemote` turns each URL into the ``Remote`` to list (by
    /// default `Remote(url, timeout: options.timeout)`); what it throws is that remote's error.
    /// `onResult` gets each listing once, `completion` is called once after the last (or after
    /// ``cancel()``).
    public init(
        _ options: LsRemoteBatchOptions = LsRemoteBatchOptions(), in loop: EpollRunLoop,
        makeRemote: ((String) throws -> Remote)? = nil, onResult: @escaping (BatchListing) -> Void,
        completion: @escaping () -> Void
    ) {
        self.options = options
        self.loop = loop
        let timeout = options.timeout
        self.makeRemote = makeRemote ?? { try Remote($0, timeout: timeout) }
        self.onResult = onResult
        self.completion = completion
    }

    /// Lists every URL of `urls`, taking each from the sequence only when a job is free for it
    /// (a lazy sequence is read as the batch goes), and finishes the input at its end.
    public func start<URLs: Sequence<String>>(_ urls: URLs) {
        var iterator = urls.makeIterator()
        onNeedsInput = { [unowned self] in
            while wantsInput {
                guard let url = iterator.next() else {
                    finishInput()
                    return
                }
                add(url)
            }
        }
        pump()
    }

    /// Whether the batch would start another remote now if it had a URL waiting.
    public var wantsInput: Bool { !inputFinished && queueHead == queue.count && canStart }

    /// The number of remotes whose exchanges are running now.
    public var runningCount: Int { running.count }

    /// Adds a URL at the end of the input; it starts when a job is free.
    public func add(_ url: String) {
        guard !inputFinished else { return }
        queue.append((nextIndex, url))
        nextIndex += 1
        pump()
    }

    /// Says that no more URLs will come; `completion` follows the last listing.
    public func finishInput() {
        guard !inputFinished else { return }
        inputFinished = true
        pump()
    }

    /// Stops: running exchanges close, URLs not started are dropped, no more listings are handed
    /// out, and `completion` is called (if it has not been).
    public func cancel() {
        guard !isCancelled else { return }
        isCancelled = true
        inputFinished = true
        queue = []
        queueHead = 0
        finished = [:]
        onNeedsInput = nil
        let slots = running
        running = [:]
        for slot in slots.values { slot.exchange?.cancel() }
        onResult = nil
        finishIfDone()
    }

    // MARK: Scheduling

    private var canStart: Bool {
        guard !isCancelled, !isSuspended, running.count < options.jobs else { return false }
        switch options.ordering {
        case .completion: return true
        case .input:
            let next = queueHead < queue.count ? queue[queueHead]!.index : nextIndex
            return next - nextDelivery < max(options.reorderWindow, options.jobs)
        }
    }

    /// Starts what may start and hands out what is ready, until nothing changes. Re-entrant calls
    /// (from callbacks inside) only ask the running pass to go round again.
    private func pump() {
        if isPumping {
            pumpAgain = true
            return
        }
        isPumping = true
        repeat {
            pumpAgain = false
            deliverReady()
            while canStart {
                if queueHead == queue.count && !inputFinished { onNeedsInput?() }
                guard canStart, let next = takeQueued() else { break }
                launch(index: next.index, url: next.url)
            }
            deliverReady()
        } while pumpAgain
        isPumping = false
        finishIfDone()
    }

    private func takeQueued() -> (index: Int, url: String)? {
        guard queueHead < queue.count else { return nil }
        let next = queue[queueHead]
        queue[queueHead] = nil
        queueHead += 1
        if queueHead == queue.count {
            queue.removeAll(keepingCapacity: queue.count <= 1024)
            queueHead = 0
        } else if queueHead >= 1024 && queueHead * 2 >= queue.count {
            queue.removeFirst(queueHead)
            queueHead = 0
        }
        return next
    }

    private func launch(index: Int, url: String) {
        let slot = Slot()
        running[index] = slot
        let remote: Remote
        do {
            remote = try makeRemote(url)
        } catch {
            complete(index: index, url: url, result: .failure(error))
            return
        }
        let exchange = remote.lsRemote(options.listing, in: loop) { [weak self] result in
            self?.complete(index: index, url: url, result: result)
        }
        // The exchange may have ended already (a transport that fails at once).
        if running[index] === slot { slot.exchange = exchange }
    }

    private func complete(index: Int, url: String, result: Result<RefListing, any Error>) {
        guard running.removeValue(forKey: index) != nil else { return }
        let listing = BatchListing(index: index, url: url, result: result)
        switch options.ordering {
        case .completion: onResult?(listing)
        case .input: finished[index] = listing
        }
        pump()
    }

    private func deliverReady() {
        guard options.ordering == .input else { return }
        while !isCancelled, let listing = finished.removeValue(forKey: nextDelivery) {
            nextDelivery += 1
            onResult?(listing)
        }
    }

    private func finishIfDone() {
        guard !isPumping, inputFinished, queueHead == queue.count, running.isEmpty, finished.isEmpty,
            let completion
        else { return }
        self.completion = nil
        onResult = nil
        onNeedsInput = nil
        completion()
    }

    /// A running remote: its exchange, once started.
    private final class Slot {
        var exchange: RunningExchange?
    }
}

@available(*, unavailable)
extension LsRemoteBatch: Sendable {}
