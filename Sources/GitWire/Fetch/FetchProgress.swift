/// Progress of a clone, fetch or push, for a display like git's.
public enum FetchProgress: Sendable, Equatable {
    /// One whole line of what the server says on side-band 2 (its progress counters, its hooks'
    /// output), split where git splits it for display: at `\r` and at `\n`. Show it after
    /// `remote: `, as git does.
    case remote(RemoteProgressLine)
    /// Receiving objects and resolving deltas.
    case pack(PackProgress)
    /// A push making and sending its pack (enumerating, counting, compressing and writing
    /// objects).
    case packing(PackingProgress)
    /// What git prints as `warning: <text>` while it fetches (a filter the server ignores).
    case warning(String)
    /// What git prints as `error: <text>` and goes on (a clone's template entry git's init does
    /// not copy, a FIFO or a device: `ignoring template <path>`).
    case error(String)
}

/// One line the server sent on side-band 2, as git shows it: the text up to a `\r` or `\n`,
/// however the server cut it into packets. A line ended by `\r` is a counter updated in place
/// (`Counting objects:  45% (450/1000)`): on a terminal the next one replaces it. Empty lines
/// come too (git shows `remote: ` for them). Text the server never ended is handed on when the
/// transfer ends, as the last line (``Ending-swift.enum/none``).
public struct RemoteProgressLine: Hashable, Sendable {
    /// How a line ended.
    public enum Ending: Hashable, Sendable {
        /// `\r`: updated in place.
        case carriageReturn
        /// `\n`.
        case lineFeed
        /// Not at all: the server's last text, handed on when the transfer ended (git shows it
        /// followed by a line break).
        case none
    }

    /// The line's bytes as sent, without its ending: may hold control characters (show ``text``).
    public let bytes: [UInt8]
    /// How the line ended.
    public let ending: Ending
    /// Raw side-band bytes not yet split into lines (only between the fetch and its relay).
    let isChunk: Bool

    /// A line of `bytes` (without its ending).
    public init(bytes: [UInt8], ending: Ending) {
        self.bytes = bytes
        self.ending = ending
        isChunk = false
    }

    /// Band-2 bytes as they arrived, for ``ProgressRelay`` to split.
    init(chunk: [UInt8]) {
        bytes = chunk
        ending = .none
        isChunk = true
    }

    /// The text with control characters replaced as git replaces them on a terminal
    /// (as `remote:` lines are shown), so a server cannot drive the user's terminal.
    public var text: String { String(decoding: maskedForTerminal(bytes), as: UTF8.self) }
}

/// Receives ``FetchProgress``, one call at a time, always on one thread: the run loop's (the
/// loop given to the run-loop forms, the private loop of the blocking forms on the calling
/// thread, the shared background loop of the `async` forms), including while deltas are resolved
/// on worker threads. Every call comes before the operation's completion.
public typealias FetchProgressHandler = @Sendable (FetchProgress) -> Void

/// Splits band-2 bytes into the lines git shows (pure state).
struct RemoteProgressSplitter {
    private var line: [UInt8] = []

    /// The lines `bytes` completes.
    mutating func append(_ bytes: [UInt8]) -> [RemoteProgressLine] {
        var lines: [RemoteProgressLine] = []
        for byte in bytes {
            if byte == 0x0a || byte == 0x0d {
                lines.append(RemoteProgressLine(bytes: line, ending: byte == 0x0d ? .carriageReturn : .lineFeed))
                line.removeAll()
            } else if line.count < 65536 {
                line.append(byte)
            }
        }
        return lines
    }

    /// What is left when the transfer ends, as a line (git ends it with `\n`).
    mutating func finish() -> RemoteProgressLine? {
        defer { line.removeAll() }
        return line.isEmpty ? nil : RemoteProgressLine(bytes: line, ending: .none)
    }
}

/// Stands between a fetch and the caller's ``FetchProgressHandler``: splits band 2 into lines and
/// hands everything on on the loop's thread, in order. Progress from a worker thread (resolving
/// deltas) is posted to the loop and the worker waits until the handler has run, so that a
/// handler that cancels the operation does so before the work goes on (and a slow handler slows
/// the work, as it did when it was called on the worker). Should the loop not run the handler
/// within 30 seconds, the worker goes on, and no longer waits for later reports.
final class ProgressRelay: Sendable {
    private let handler: FetchProgressHandler
    private let handle: RunLoopHandle
    private let splitter = Locked(RemoteProgressSplitter())
    /// Set when the loop left a report waiting too long: later ones are posted without waiting.
    private let loopUnresponsive = Locked(false)

    init(_ handler: @escaping FetchProgressHandler, loop: EpollRunLoop) {
        self.handler = handler
        handle = loop.handle
    }

    /// The handler the fetch reports to.
    var sink: FetchProgressHandler { { [self] in receive($0) } }

    private func receive(_ progress: FetchProgress) {
        if case .remote(let chunk) = progress, chunk.isChunk {
            for line in splitter.withLock({ $0.append(chunk.bytes) }) { deliver(.remote(line)) }
        } else {
            deliver(progress)
        }
    }

    private func deliver(_ progress: FetchProgress) {
        let handler = self.handler
        guard !handle.isRunningOnCurrentThread, !loopUnresponsive.withLock({ $0 }) else {
            if !handle.post({ handler(progress) }) { handler(progress) }
            return
        }
        let delivered = OneShotSignal()
        if handle.post({
            handler(progress)
            delivered.signal()
        }) {
            if !delivered.wait(timeout: .seconds(30)) { loopUnresponsive.withLock { $0 = true } }
        } else {
            handler(progress)
        }
    }

    /// Hands on the last, unended line, then runs `then`, on the loop after everything before.
    func finish(then: @escaping @Sendable () -> Void) {
        let last = splitter.withLock { $0.finish() }
        let handler = self.handler
        let work: @Sendable () -> Void = {
            if let last { handler(.remote(last)) }
            then()
        }
        if !handle.post(work) { work() }
    }
}
