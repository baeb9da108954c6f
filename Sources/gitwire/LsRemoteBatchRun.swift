import GitWire

/// The most remotes `ls-remote --batch` lists at once.
let maximumBatchJobs = 1024

extension LsRemoteCommand {
    /// `ls-remote --batch <file>`: lists every URL of the file on this thread's run loop and
    /// prints a block (or a JSON line) per remote. Returns 0 when all were listed, 1 when any
    /// failed; throws (exit 128) when the options are wrong or the list cannot be read.
    func listBatch(_ path: String) throws -> Int32 {
        for (set, name) in [(getURL, "--get-url"), (connection.record != nil, "--record"), (exitCode, "--exit-code")]
        where set {
            throw ValidationError("\(name) cannot be used with --batch")
        }
        // Each job holds a few descriptors (a socket; pipes and a pidfd for a local remote), and
        // the default number of jobs follows from how many the process may open.
        ResourceLimits.raiseOpenFileLimit()
        let jobs = try parseJobs(self.jobs, option: "--jobs", default: LsRemoteBatchOptions.defaultJobs)
        let jobsPerHost = try parseJobs(self.jobsPerHost, option: "--jobs-per-host", default: 6)
        let version = try connection.version()
        let timeout = try parseTimeout(connection.timeout)
        let deadline: Duration? =
            try deadline.map { $0 == "0" ? nil : try parseSeconds($0, option: "--deadline") }
            ?? LsRemoteBatchOptions.defaultDeadline
        let file: File
        if path == "-" {
            file = File.standardInput()
        } else {
            do {
                file = try File.openForReading(path)
            } catch let error as SystemCallError {
                throw BatchInputError(path: path, reason: error)
            }
        }
        let filter = RefFilter(
            heads: heads, tags: tags, refsOnly: refs, patterns: (repository.map { [$0] } ?? []) + patterns)
        let options = LsRemoteBatchOptions(
            jobs: jobs, jobsPerHost: jobsPerHost, ordering: completionOrder ? .completion : .input,
            listing: LsRemoteOptions(
                protocolVersion: version, refPrefixes: filter.refPrefixes, serverOptions: serverOptions,
                agent: FetchArguments.userAgent),
            timeout: timeout, deadline: deadline)
        let loop = try EpollRunLoop.current()
        let run = BatchRun(
            options: options, output: BatchOutput(filter: filter, showSymrefs: symref, json: json),
            uploadPack: connection.uploadPack, loop: loop)
        try run.start(reading: file, named: path)
        loop.run()
        // Let the connections finish closing: farewells still queued, children still to reap.
        loop.run()
        if let error = run.fatalError { throw error }
        return run.failures > 0 ? 1 : 0
    }
}

/// Parses `--jobs` and `--jobs-per-host`: a whole number from 1 to ``maximumBatchJobs``;
/// `defaultValue` when not given.
func parseJobs(_ text: String?, option: String, default defaultValue: Int) throws -> Int {
    guard let text else { return defaultValue }
    guard let jobs = Int(text), (1...maximumBatchJobs).contains(jobs) else {
        throw ValidationError("\(option) takes a whole number from 1 to \(maximumBatchJobs), not '\(text)'")
    }
    return jobs
}

/// The list of URLs could not be opened or read.
struct BatchInputError: GitWireError {
    /// The file given to `--batch`.
    let path: String
    /// What failed.
    let reason: SystemCallError

    var kind: GitWireErrorKind { .system }
    var description: String { "could not read '\(path)': \(reason.errno)" }
}

/// One `ls-remote --batch` run on the calling thread's loop: the batch, the thread reading its
/// input, and what is printed.
private final class BatchRun {
    private let output: BatchOutput
    private let loop: EpollRunLoop
    private var batch: LsRemoteBatch!
    private var input: BatchInput?
    /// Entries of the last chunk read, not yet given to the batch (from `pendingHead` on): they
    /// go in only as the batch has room, so it makes no more remotes than its window holds.
    private var pending: [BatchInput.Entry] = []
    private var pendingHead = 0
    private var inputEnded = false
    private var inputRequested = true
    private var loopHold: RunLoopHold?
    private var path = ""
    /// Remotes that failed.
    private(set) var failures = 0
    /// Why the whole run failed: the input could not be read, or output could not be written.
    private(set) var fatalError: (any Error)?

    init(options: LsRemoteBatchOptions, output: BatchOutput, uploadPack: String?, loop: EpollRunLoop) {
        self.output = output
        self.loop = loop
        let timeout = options.timeout
        batch = LsRemoteBatch(
            options, in: loop,
            makeRemote: { url in
                var remote = try CommandConfiguration.remote(url, timeout: timeout)
                // What ssh or git-upload-pack says goes into that remote's own error.
                remote.programErrorOutput = .kept
                if var http = remote.transport as? HTTPTransport {
                    let shown = RemoteURL.withoutCredentials(url)
                    http.options.warning = { Console.writeError("warning: \(shown): \($0)\n") }
                    remote.transport = http
                }
                if let uploadPack, remote.url.scheme == .file {
                    var local = LocalTransport(uploadPack: uploadPack)
                    local.programErrorOutput = .kept
                    remote.transport = local
                }
                return remote
            },
            onResult: { [unowned self] in print($0) },
            completion: { [unowned self] in finish() })
    }

    /// Starts reading `file` (`path`, as given) on a thread of its own; URLs reach the batch as
    /// they are read.
    func start(reading file: File, named path: String) throws {
        self.path = path
        // The loop must not return while it waits for the reading thread with nothing else to do.
        loopHold = RunLoopHold(loop)
        let bound = LoopBound(self, on: loop)
        let input = BatchInput(file: file, handle: loop.handle) { chunk in bound.value?.receive(chunk) }
        self.input = input
        batch.onNeedsInput = { [unowned self] in feedBatch() }
        try input.start()
    }

    private func receive(_ chunk: BatchInput.Chunk) {
        inputRequested = false
        switch chunk {
        case .urls(let urls):
            pending = urls
        case .end(let urls):
            pending = urls
            inputEnded = true
        case .failed(let error):
            fatalError = (error as? SystemCallError).map { BatchInputError(path: path, reason: $0) } ?? error
            batch.cancel()
            return
        }
        pendingHead = 0
        feedBatch()
    }

    /// Gives the batch what it has room for; asks the reading thread for more when the chunk is
    /// used up.
    private func feedBatch() {
        while batch.wantsInput && pendingHead < pending.count {
            let entry = pending[pendingHead]
            pendingHead += 1
            switch entry {
            case .url(let url):
                batch.add(url)
            case .tooLong(let start, let line, let length):
                batch.add(start + "...", failure: BatchLineTooLongError(line: line, length: length))
            }
        }
        guard pendingHead == pending.count, !inputRequested else { return }
        if inputEnded {
            batch.finishInput()
        } else {
            inputRequested = true
            pending = []
            pendingHead = 0
            input?.requestMore()
        }
    }

    private func print(_ listing: BatchListing) {
        switch listing.result {
        case .success(let refs):
            for warning in refs.warnings {
                Console.writeError("warning: \(RemoteURL.withoutCredentials(listing.url)): \(warning)\n")
            }
        case .failure:
            failures += 1
        }
        do {
            try Console.writeOutput(output.format(listing))
        } catch {
            fatalError = error
            batch.cancel()
        }
    }

    private func finish() {
        loopHold?.release()
        loopHold = nil
        input = nil
        loop.stop()
    }
}
