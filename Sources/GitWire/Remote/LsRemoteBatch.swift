/// In which order a batch hands out its listings.
public enum LsRemoteBatchOrdering: Hashable, Sendable {
    /// In the order the URLs came in: a finished remote waits only for earlier ones still running.
    case input
    /// As each remote finishes.
    case completion
}

/// How ``LsRemoteBatch`` lists many remotes.
public struct LsRemoteBatchOptions: Sendable {
    /// How many remotes are listed at once (at least 1). By default ``defaultJobs``: as many as
    /// the process's descriptors allow, at most 1,024, so that the batch's concurrency comes
    /// from its input, one ``jobsPerHost`` for every server it names, rather than from a fixed
    /// number (listing a remote is a few round trips of waiting, and a thousand waits cost one
    /// thread nothing).
    public var jobs: Int
    /// How many of them may talk to one server (the same host and port) at once (at least 1).
    /// Local remotes (paths, file://) all run on this machine, so they count as one server:
    /// each is a `git-upload-pack` process, and more of them than that at once only compete for
    /// the processors.
    ///
    /// Servers take new connections through a short queue: `git daemon` and Python's
    /// `http.server` listen with a backlog of 5, which lets 6 connections wait to be accepted;
    /// `git daemon` serves at most 32 clients by default (`--max-connections`); `sshd` starts
    /// dropping connections beyond 10 unauthenticated ones (`MaxStartups`). When more connection
    /// requests arrive than the queue holds, the kernel drops them and each dropped one costs its
    /// client a retransmission a second or more later (measured in Documentation/Performance.md).
    /// The default, 6, never overfills such a queue.
    public var jobsPerHost: Int
    /// In which order listings are handed out.
    public var ordering: LsRemoteBatchOrdering
    /// What is asked of each remote: protocol version, `ref-prefix`es, server options.
    public var listing: LsRemoteOptions
    /// Bounds each remote's connect and every wait for its data; nil waits forever.
    public var timeout: Duration?
    /// Bounds each remote's exchange as a whole, from the start of its connect to its last byte
    /// (``Remote/deadline``), so that no server, silent or trickling, holds its job and (in
    /// input order) the listings after it for longer; nil: no deadline. By default
    /// ``defaultDeadline``. A remote whose own ``Remote/deadline`` is set keeps it.
    public var deadline: Duration?
    /// The default ``deadline``: 60 seconds, far more than listing even a large repository's
    /// refs takes (git.git over the internet: well under a second).
    public static let defaultDeadline: Duration = .seconds(60)
    /// The default ``jobs``: the process's limit on open descriptors, less 64 for everything
    /// else, over 4 (a job holds one socket, or for a local remote or ssh two pipes, a pidfd and
    /// the child's end), at most 1,024 and at least 1. Raising the limit first (as `gitwire`
    /// does, to the hard limit) raises it.
    public static var defaultJobs: Int {
        min(1024, max(1, (ResourceLimits.openFileLimit() - 64) / 4))
    }
    /// How many remotes the batch holds at most between reading their URL and handing out their
    /// listing: queued (this is how far it looks ahead for a remote on a server with a free
    /// job), running, and, with ``LsRemoteBatchOrdering/input``, finished but waiting for an
    /// earlier one. Never fewer than ``jobs``.
    public var window: Int

    /// Makes options. `jobs` defaults to ``defaultJobs``, the window to four times `jobs`, the
    /// deadline to ``defaultDeadline``.
    public init(
        jobs: Int = LsRemoteBatchOptions.defaultJobs, jobsPerHost: Int = 6, ordering: LsRemoteBatchOrdering = .input,
        listing: LsRemoteOptions = LsRemoteOptions(), timeout: Duration? = nil,
        deadline: Duration? = LsRemoteBatchOptions.defaultDeadline, window: Int? = nil
    ) {
        self.jobs = max(1, jobs)
        self.jobsPerHost = max(1, jobsPerHost)
        self.ordering = ordering
        self.listing = listing
        self.timeout = timeout
        self.deadline = deadline
        self.window = max(self.jobs, window ?? self.jobs * 4)
    }
}

/// One remote's answer in a batch: its refs or why it failed.
public struct BatchListing: Sendable {
    /// The remote's position in the input, from 0.
    public let index: Int
    /// The URL as it was given, without user information (``RemoteURL/withoutCredentials(_:)``):
    /// a listing never holds a password.
    public let url: String
    /// The listing, or the error that ended this remote's exchange: its ``GitWireError/kind``
    /// says what happened, its description why (for a remote reached through a program, the
    /// program's own explanation: ssh's `Permission denied (publickey).`, `git-upload-pack`'s
    /// `'/x' does not appear to be a git repository`).
    public let result: Result<RefListing, AnyGitWireError>

    /// Makes a listing; `url` is kept without its user information.
    public init(index: Int, url: String, result: Result<RefListing, any Error>) {
        self.index = index
        self.url = RemoteURL.withoutCredentials(url)
        self.result = result.mapError { AnyGitWireError($0) }
    }
}

/// Lists the refs of many remotes concurrently on one ``EpollRunLoop``: at most
/// ``LsRemoteBatchOptions/jobs`` exchanges at a time, at most
/// ``LsRemoteBatchOptions/jobsPerHost`` of them with any one server, each over its own transport
/// (git://, file://, ssh://, http(s)://), each with its own timeout, deadline and error.
///
/// URLs come in as they are needed (from a sequence given to ``start(_:)``, or pushed with
/// ``add(_:)`` when ``onNeedsInput`` asks), so neither the input nor the results are ever held
/// whole: the batch holds at most ``LsRemoteBatchOptions/window`` remotes (read but not handed
/// out) however many URLs there are. A remote that fails (bad URL, refused or reset connection,
/// missing repository, timeout) is handed out as a failed ``BatchListing`` and is never
/// retried; the others go on.
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
    /// Remotes read but not started, in input order.
    private var queue: [Queued] = []
    private var nextIndex = 0
    private var nextDelivery = 0
    private var inputFinished = false
    private var running: [Int: Slot] = [:]
    private var runningPerHost: [String: Int] = [:]
    /// How many remotes of each server wait in ``queue``.
    private var queuedPerHost: [String: Int] = [:]
    private var finished: [Int: BatchListing] = [:]
    private var isCancelled = false
    private var isPumping = false
    private var pumpAgain = false

    /// Called on the loop whenever the batch has room for another URL and none is waiting:
    /// answer with ``add(_:)`` (one URL or several), ``finishInput()``, or nothing (then add
    /// later; the batch waits). ``start(_:)`` sets it to read from a sequence.
    public var onNeedsInput: (() -> Void)?

    /// While true, no new remote starts; those running finish and are handed out. For a
    /// consumer that cannot keep up.
    public var isSuspended = false {
        didSet { if !isSuspended { pump() } }
    }

    /// Makes a batch on `loop`. `makeRemote` turns each URL into the ``Remote`` to list (by
    /// default `Remote(url, timeout: options.timeout)` with ``Remote/programErrorOutput`` set to
    /// ``ProgramErrorOutput/kept``, so that what ssh or `git-upload-pack` says about a remote is
    /// in that remote's error and nowhere else) when the URL is read; what it throws is
    /// that remote's error. `onResult` gets each listing once, `completion` is called once after
    /// the last (or after ``cancel()``).
    public init(
        _ options: LsRemoteBatchOptions = LsRemoteBatchOptions(), in loop: EpollRunLoop,
        makeRemote: ((String) throws -> Remote)? = nil, onResult: @escaping (BatchListing) -> Void,
        completion: @escaping () -> Void
    ) {
        self.options = options
        self.loop = loop
        let timeout = options.timeout
        self.makeRemote =
            makeRemote ?? {
                var remote = try Remote($0, timeout: timeout)
                remote.programErrorOutput = .kept
                return remote
            }
        self.onResult = onResult
        self.completion = completion
    }

    /// Lists every URL of `urls`, taking each from the sequence only when the batch has room for
    /// it (a lazy sequence is read as the batch goes), and finishes the input at its end.
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

    /// Whether the batch has room for another URL (fewer than the window held).
    public var wantsInput: Bool { !inputFinished && !isCancelled && heldCount < options.window }

    /// The number of remotes whose exchanges are running now.
    public var runningCount: Int { running.count }

    /// Adds a URL at the end of the input; its remote starts when a job is free (URLs added
    /// beyond the window wait in a queue).
    public func add(_ url: String) {
        guard !inputFinished else { return }
        let index = nextIndex
        nextIndex += 1
        do {
            let remote = try makeRemote(url)
            let host = Self.serverKey(remote.url)
            queue.append(Queued(index: index, url: url, remote: remote, host: host))
            queuedPerHost[host, default: 0] += 1
        } catch {
            running[index] = Slot(host: nil)
            complete(index: index, url: url, result: .failure(error))
        }
        pump()
    }

    /// Adds an entry of the input that fails without a remote (a line too long to be a URL, say):
    /// it keeps its place in the input order and is handed out as a listing failed with `error`.
    package func add(_ url: String, failure error: any Error) {
        guard !inputFinished else { return }
        let index = nextIndex
        nextIndex += 1
        running[index] = Slot(host: nil)
        complete(index: index, url: url, result: .failure(error))
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
        queuedPerHost = [:]
        finished = [:]
        onNeedsInput = nil
        let slots = running
        running = [:]
        runningPerHost = [:]
        for slot in slots.values { slot.exchange?.cancel() }
        onResult = nil
        finishIfDone()
    }

    // MARK: Scheduling

    /// Remotes read and not yet handed out.
    private var heldCount: Int {
        switch options.ordering {
        case .input: nextIndex - nextDelivery
        case .completion: queue.count + running.count
        }
    }

    /// The server a remote talks to (`host:port`); for a local one, this machine (a key no host
    /// and port can make).
    private static func serverKey(_ url: RemoteURL) -> String {
        let defaultPort: Int
        switch url.scheme {
        case .file: return "local"
        case .git: defaultPort = 9418
        case .ssh: defaultPort = 22
        case .http: defaultPort = 80
        case .https: defaultPort = 443
        }
        return "\((url.host ?? "").lowercased()):\(url.port ?? defaultPort)"
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
            if wantsInput { onNeedsInput?() }
            startWhatMay()
            deliverReady()
            if wantsInput && !pumpAgain { onNeedsInput?() }
        } while pumpAgain
        isPumping = false
        finishIfDone()
    }

    /// Starts queued remotes, oldest first, while jobs are free, skipping those whose server has
    /// all the jobs it may have. The walk along the queue ends as soon as no server that has a
    /// remote waiting has a free job, so a long queue for a few busy servers costs little.
    private func startWhatMay() {
        guard !isCancelled, !isSuspended else { return }
        var startable = queuedPerHost.keys.count { runningPerHost[$0, default: 0] < options.jobsPerHost }
        var position = 0
        while position < queue.count && running.count < options.jobs && startable > 0 {
            let entry = queue[position]
            let runningOnHost = runningPerHost[entry.host, default: 0]
            if runningOnHost >= options.jobsPerHost {
                position += 1
                continue
            }
            queue.remove(at: position)
            let queuedOnHost = queuedPerHost[entry.host, default: 1] - 1
            queuedPerHost[entry.host] = queuedOnHost > 0 ? queuedOnHost : nil
            if queuedOnHost == 0 || runningOnHost + 1 >= options.jobsPerHost { startable -= 1 }
            launch(entry)
            if isCancelled || isSuspended { return }
        }
    }

    private func launch(_ entry: Queued) {
        let slot = Slot(host: entry.host)
        running[entry.index] = slot
        runningPerHost[entry.host, default: 0] += 1
        let index = entry.index
        let url = entry.url
        var remote = entry.remote
        if remote.deadline == nil { remote.deadline = options.deadline }
        let exchange = remote.lsRemote(options.listing, in: loop) { [weak self] result in
            self?.complete(index: index, url: url, result: result)
        }
        // The exchange may have ended already (a transport that fails at once).
        if running[index] === slot { slot.exchange = exchange }
    }

    private func complete(index: Int, url: String, result: Result<RefListing, any Error>) {
        guard let slot = running.removeValue(forKey: index) else { return }
        if let host = slot.host {
            let count = runningPerHost[host, default: 1] - 1
            runningPerHost[host] = count > 0 ? count : nil
        }
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
        guard !isPumping, inputFinished, queue.isEmpty, running.isEmpty, finished.isEmpty, let completion
        else { return }
        self.completion = nil
        onResult = nil
        onNeedsInput = nil
        completion()
    }

    /// A remote read and waiting for a job.
    private struct Queued {
        let index: Int
        let url: String
        let remote: Remote
        let host: String
    }

    /// A running remote: its server and its exchange, once started.
    private final class Slot {
        let host: String?
        var exchange: RunningExchange?

        init(host: String?) { self.host = host }
    }
}

@available(*, unavailable)
extension LsRemoteBatch: Sendable {}
