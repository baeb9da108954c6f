// The one way from the run-loop API to callers that run no loop of their own. Every blocking
// form runs its run-loop form on a private loop (`runOnPrivateLoop`); every `async` form
// (`Remote.run`, `lsRemote`, `refs()`, `clone`, `fetch`, `push`, the batch) runs it on the shared
// background loop through a `LoopBridge`.

// MARK: Blocking

/// Runs an operation of the run-loop API on a loop of its own on the calling thread until it
/// completes, and returns its result. `start` begins it and returns its handle.
func runOnPrivateLoop<Output>(
    _ start: (EpollRunLoop, @escaping (Result<Output, any Error>) -> Void) -> RunningExchange
) throws -> Output {
    let loop = try EpollRunLoop()
    var outcome: Result<Output, any Error>?
    _ = start(loop) { result in
        outcome = result
        loop.stop()
    }
    loop.run()
    // Let the connection finish closing: a farewell still queued, a child still to reap.
    loop.run()
    guard let outcome else { throw CancelledError() }
    return try outcome.get()
}

/// Runs an operation of the run-loop API on the shared background loop and awaits its result:
/// `start` begins it on the loop's thread and returns its handle. Cancelling the task cancels it
/// there (before it begins, it never begins).
func runOnSharedLoop<Output: Sendable>(
    _ start: @escaping @Sendable (EpollRunLoop, @escaping (Result<Output, any Error>) -> Void) -> RunningExchange
) async throws -> Output {
    try await LoopBridge<Never, Output> { loop, _, finish in BridgedOperation(running: start(loop, finish)) }.result()
}

// MARK: The shared loop

/// A run loop on a background thread of its own, for the `async` API. The thread starts when
/// work is posted and ends when its loop has nothing left to do, so an idle process keeps no
/// thread.
final class SharedRunLoop: Sendable {
    static let shared = SharedRunLoop()

    private let current = Locked<RunLoopHandle?>(nil)

    /// Runs `work` on the shared loop's thread, with its loop, starting the thread if there is none.
    func post(_ work: @escaping @Sendable (EpollRunLoop) -> Void) throws {
        while true {
            let handle = try current.withLock { handle in
                if let handle { return handle }
                let started = try startThread()
                handle = started
                return started
            }
            if handle.post({ if let loop = try? EpollRunLoop.current() { work(loop) } }) { return }
            current.withLock { if $0 === handle { $0 = nil } }
        }
    }

    private func startThread() throws -> RunLoopHandle {
        let loop = try EpollRunLoop()
        let handle = loop.handle
        try EpollRunLoop.runOnNewThread(loop) { [self] in
            current.withLock { if $0 === handle { $0 = nil } }
        }
        return handle
    }
}

// MARK: async

/// What a bridged operation hands back when it starts on the loop: how to cancel it, and, for
/// an operation that can wait for its consumer, how to hold it (`true`) and let it go on.
struct BridgedOperation {
    /// Cancels the operation; its completion follows (with ``CancelledError`` unless it ended
    /// otherwise first).
    var running: RunningExchange
    /// Holds the operation while its consumer has ``LoopBridge/bufferLimit`` elements unread.
    var hold: ((Bool) -> Void)?
}

/// Runs one operation of the run-loop API on the shared background loop for a task: the
/// elements it hands out (refs, listings) wait here for the consumer, its result is awaited,
/// and cancelling the task (or dropping the consumer) cancels it on the loop.
///
/// Cancellation is honoured in every phase, as the operations document: before the operation
/// began on the loop, it never begins; while it runs, its ``RunningExchange`` is cancelled
/// there, and the caller gets the operation's own completion (so a clone cancelled while its
/// deltas are resolved has removed what it made when the call throws ``CancelledError``; one
/// whose refs were already written completes).
final class LoopBridge<Element: Sendable, Output: Sendable>: Sendable {
    /// Begins the operation on the loop: `emit` takes each element, `finish` the result (once).
    /// Both are called on the loop's thread.
    typealias Start =
        @Sendable (
            _ loop: EpollRunLoop, _ emit: @escaping (Element) -> Void,
            _ finish: @escaping (Result<Output, any Error>) -> Void
        ) -> BridgedOperation

    private let start: Start
    /// How many unread elements make the bridge hold the operation (``BridgedOperation/hold``).
    private let bufferLimit: Int
    private let state = Locked(State())

    private enum Phase {
        /// Not asked for yet.
        case idle
        /// Posted to the loop, not begun there yet.
        case starting
        /// Begun: the handle of its loop, and what only that loop's thread touches.
        case running(RunLoopHandle, LoopBound<LoopSide>)
        /// Its result is in ``State/outcome``.
        case finished
    }

    private struct State {
        var phase = Phase.idle
        var cancelled = false
        var held = false
        var buffer: [Element] = []
        var head = 0
        var outcome: Result<Output, any Error>?
        /// Set once a consumer of elements has been told the end.
        var endTaken = false
        var elementWaiter: CheckedContinuation<Element?, any Error>?
        var resultWaiter: CheckedContinuation<Output, any Error>?

        var unread: Int { buffer.count - head }

        mutating func takeElement() -> Element? {
            guard head < buffer.count else { return nil }
            let element = buffer[head]
            head += 1
            if head == buffer.count {
                buffer.removeAll(keepingCapacity: true)
                head = 0
            }
            return element
        }

        /// Marks the operation as begun when nothing began it yet.
        mutating func beginIfIdle() -> Bool {
            guard case .idle = phase else { return false }
            phase = .starting
            return true
        }
    }

    /// The operation on its loop, and what keeps that loop running while the operation is held
    /// (a held batch may have nothing else for the loop to wait for until the consumer reads).
    private final class LoopSide {
        let loop: EpollRunLoop
        var operation: BridgedOperation?
        var loopHold: RunLoopHold?

        init(loop: EpollRunLoop) { self.loop = loop }

        func hold(_ hold: Bool) {
            guard let operation, (loopHold != nil) != hold else { return }
            if hold {
                loopHold = RunLoopHold(loop)
            } else {
                loopHold?.release()
                loopHold = nil
            }
            operation.hold?(hold)
        }
    }

    init(bufferLimit: Int = .max, _ start: @escaping Start) {
        self.bufferLimit = max(1, bufferLimit)
        self.start = start
    }

    // MARK: The consumer's side (any thread)

    /// The operation's result. Cancelling the task cancels the operation.
    func result() async throws -> Output {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Output, any Error>) in
                let (outcome, begin) = state.withLock { state -> (Result<Output, any Error>?, Bool) in
                    if let outcome = state.outcome { return (outcome, false) }
                    state.resultWaiter = continuation
                    return (nil, state.beginIfIdle())
                }
                if let outcome { continuation.resume(with: outcome) }
                if begin { post() }
            }
        } onCancel: {
            cancel()
        }
    }

    /// The next element, nil after the last; throws the operation's error (``CancelledError``
    /// when it was cancelled). Cancelling the task cancels the operation.
    func next() async throws -> Element? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Element?, any Error>) in
                let (answer, begin, release) = state.withLock {
                    state -> (Result<Element?, any Error>?, Bool, (RunLoopHandle, LoopBound<LoopSide>)?) in
                    if let element = state.takeElement() {
                        var release: (RunLoopHandle, LoopBound<LoopSide>)?
                        if state.held, state.unread < bufferLimit, case .running(let handle, let side) = state.phase {
                            state.held = false
                            release = (handle, side)
                        }
                        return (.success(element), false, release)
                    }
                    if state.cancelled || state.outcome != nil {
                        if state.endTaken { return (.success(nil), false, nil) }
                        state.endTaken = true
                        return (Self.end(state), false, nil)
                    }
                    state.elementWaiter = continuation
                    return (nil, state.beginIfIdle(), nil)
                }
                if let answer { continuation.resume(with: answer) }
                if begin { post() }
                if let (handle, side) = release { handle.post { side.value?.hold(false) } }
            }
        } onCancel: {
            cancel()
        }
    }

    /// Cancels the operation from any thread: one not begun never begins; one running is
    /// cancelled on its loop. Elements not yet taken are dropped.
    func cancel() {
        let running = state.withLock { state -> (RunLoopHandle, LoopBound<LoopSide>)? in
            guard state.outcome == nil, !state.cancelled else { return nil }
            state.cancelled = true
            state.buffer = []
            state.head = 0
            switch state.phase {
            case .idle:
                state.phase = .finished
                state.outcome = .failure(CancelledError())
                return nil
            case .running(let handle, let side):
                return (handle, side)
            case .starting, .finished:
                return nil
            }
        }
        guard let (handle, side) = running else { return }
        // On the loop's thread (a progress handler that cancels the task), at once, as a
        // run-loop caller cancels from a callback: so the operation knows before it completes.
        if handle.isRunningOnCurrentThread {
            side.value?.operation?.running.cancel()
        } else if !handle.post({ side.value?.operation?.running.cancel() }) {
            // The loop ended, so nothing of the operation is left on it.
            finish(.failure(CancelledError()))
        }
    }

    // MARK: The loop's side

    private func post() {
        do {
            try SharedRunLoop.shared.post { [self] loop in begin(on: loop) }
        } catch {
            finish(.failure(error))
        }
    }

    private func begin(on loop: EpollRunLoop) {
        let side = LoopBound(LoopSide(loop: loop), on: loop)
        let cancelled = state.withLock { state in
            if !state.cancelled { state.phase = .running(loop.handle, side) }
            return state.cancelled
        }
        if cancelled { return finish(.failure(CancelledError())) }
        var finished = false
        let operation = start(
            loop, { [self] element in emit(element, side) },
            { [self] result in
                finished = true
                if let loopSide = side.value {
                    loopSide.hold(false)
                    loopSide.operation = nil
                }
                finish(result)
            })
        guard !finished else { return }
        side.value?.operation = operation
        // What happened while it began: elements that filled the buffer, a cancellation (from a
        // callback on this thread, which found no operation to cancel yet).
        let (held, cancelledMeanwhile) = state.withLock { ($0.held, $0.cancelled) }
        if cancelledMeanwhile { return operation.running.cancel() }
        if held { side.value?.hold(true) }
    }

    private func emit(_ element: Element, _ side: LoopBound<LoopSide>) {
        let (waiter, hold) = state.withLock { state -> (CheckedContinuation<Element?, any Error>?, Bool) in
            guard state.outcome == nil, !state.cancelled else { return (nil, false) }
            if let waiter = state.elementWaiter {
                state.elementWaiter = nil
                return (waiter, false)
            }
            state.buffer.append(element)
            guard state.unread >= bufferLimit, !state.held else { return (nil, false) }
            state.held = true
            return (nil, true)
        }
        waiter?.resume(returning: element)
        if hold { side.value?.hold(true) }
    }

    private func finish(_ result: Result<Output, any Error>) {
        let (outcome, elementWaiter, resultWaiter) = state.withLock {
            state -> (
                Result<Output, any Error>, CheckedContinuation<Element?, any Error>?,
                CheckedContinuation<Output, any Error>?
            ) in
            if let outcome = state.outcome { return (outcome, nil, nil) }
            state.phase = .finished
            state.outcome = result
            let waiters = (state.elementWaiter, state.resultWaiter)
            if waiters.0 != nil { state.endTaken = true }
            state.elementWaiter = nil
            state.resultWaiter = nil
            return (result, waiters.0, waiters.1)
        }
        elementWaiter?.resume(with: state.withLock { Self.end($0) })
        resultWaiter?.resume(with: outcome)
    }

    /// What a consumer of elements is told at the end: nil after a complete run, the error
    /// otherwise, and ``CancelledError`` whenever it was cancelled (the elements it did not take
    /// were dropped, so an operation that still completed must not look complete to it).
    private static func end(_ state: State) -> Result<Element?, any Error> {
        if state.cancelled { return .failure(CancelledError()) }
        return (state.outcome ?? .failure(CancelledError())).map { _ in nil }
    }
}

/// The consumer's end of a ``LoopBridge``, for an iterator: dropping it cancels the operation
/// (leaving a `for try await` loop early closes the connection).
final class LoopBridgeConsumer<Element: Sendable, Output: Sendable>: Sendable {
    let bridge: LoopBridge<Element, Output>

    init(_ bridge: LoopBridge<Element, Output>) { self.bridge = bridge }

    deinit { bridge.cancel() }
}
