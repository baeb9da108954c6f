import GitWireCore

/// An epoll-driven run loop: one per thread, many streams, timers, and work posted from other
/// threads through its ``handle``. Every delegate call, timer action and posted closure runs on the
/// thread that calls ``run()``.
public final class EpollRunLoop {
    private let epoll: Epoll
    /// The thread-safe side of the loop: post work or stop it from any thread.
    public let handle: RunLoopHandle
    private var sources: [UInt64: any LoopSource] = [:]
    private var nextToken: UInt64 = 1
    private var pendingEvents: [() -> Void] = []
    private var timers = TimerQueue()
    private var timerSequence: UInt64 = 0
    private var stopRequested = false
    private var isRunning = false
    /// Work elsewhere that will post back here (``RunLoopHold``): ``run()`` waits for it.
    fileprivate var holds = 0
    /// Why the loop stopped watching its descriptors, if `epoll_wait` ever failed.
    public private(set) var failure: (any Error)?
    /// The loop's libcurl multi handle, made when the first HTTP transfer starts here.
    package var curlDriver: AnyObject?
    private static let wakeupToken: UInt64 = 0

    private static let perThread = ThreadLocal { try EpollRunLoop() }

    /// The calling thread's run loop, made on first use.
    public static func current() throws -> EpollRunLoop { try perThread.value() }

    private static let privateLoops = ThreadLocal { try EpollRunLoop() }

    /// The loop the calling thread's blocking stream calls (``ByteInputStream/readFully(_:)``,
    /// ``ListeningSocket/accept(timeout:)``, …) run their stream or socket on until what they
    /// wait for happens: one per thread, made on first use, never ``current()`` (a blocking call
    /// may be made inside that loop's callbacks).
    package static func privateLoop() throws -> EpollRunLoop { try privateLoops.value() }

    /// Runs this (private) loop until `descriptor` is readable (or writable), or `timeout`
    /// passes (``StreamTimeoutError``). Hang-ups and errors count as ready: the next call on the
    /// descriptor reports them. Only the wait is on the loop, not the stream's channel, so the
    /// two directions of one socket may block on two threads at once.
    package func wait(for descriptor: FileDescriptor, writable: Bool, timeout: Duration?, activity: String) throws {
        let wait = ReadinessWait(descriptor: descriptor, interest: writable ? .writable : .readable)
        register(wait)
        defer { if wait.registration.token != 0 { unregister(wait) } }
        var timedOut = false
        let timer = timeout.map { timeout in
            addTimer(after: timeout) { [unowned self] _ in
                timedOut = true
                self.stop()
            }
        }
        defer { timer?.invalidate() }
        while !wait.isReady {
            if let failure = wait.failure { throw failure }
            run()
            if timedOut && !wait.isReady { throw StreamTimeoutError(after: timeout ?? .zero, activity: activity) }
        }
    }

    /// Starts a thread that makes `loop` its ``current()`` loop and runs it until it has nothing
    /// left to do and nothing posted (then its handle refuses posts), and calls `onExit` there.
    package static func runOnNewThread(_ loop: EpollRunLoop, onExit: @escaping @Sendable () -> Void) throws {
        // The loop moves to the new thread and is used there only; no other thread touches it.
        nonisolated(unsafe) let loop = loop
        try startDetachedThread {
            Self.perThread.set(loop)
            let handle = loop.handle
            while true {
                loop.run()
                if handle.finishIfIdle() { break }
            }
            onExit()
        }
    }

    /// Makes a run loop. Most code uses ``current()``; a loop of its own is for a thread that
    /// wants more than one, and for tests.
    public init() throws {
        epoll = try Epoll()
        handle = try RunLoopHandle()
        try epoll.add(handle.wakeup.descriptor, interest: .readable, token: Self.wakeupToken)
    }

    deinit {
        for work in handle.finish() { work() }
    }

    /// The number of sources (stream channels, listeners) scheduled now.
    package var scheduledSourceCount: Int { sources.count }

    // MARK: Running

    /// Runs until ``stop()`` is called or nothing is left that could make anything happen: no
    /// stream waiting for a descriptor, no valid timer, no pending event, no posted work.
    public func run() { run(deadline: nil) }

    /// Like ``run()``, but returns at `deadline` at the latest.
    public func run(until deadline: ContinuousClock.Instant) { run(deadline: deadline) }

    /// Makes the running ``run()`` return. Call it on the loop's thread; from another thread use
    /// ``handle``'s ``RunLoopHandle/stop()``.
    public func stop() { stopRequested = true }

    private func run(deadline: ContinuousClock.Instant?) {
        guard !isRunning else { return }
        isRunning = true
        let outerThread = handle.enterRun()
        defer {
            handle.leaveRun(restoring: outerThread)
            isRunning = false
            stopRequested = false
        }
        while true {
            for work in handle.takePosted() { work() }
            if handle.takeStopRequest() { stopRequested = true }
            deliverPendingEvents()
            fireDueTimers()
            if stopRequested { return }
            let now = ContinuousClock.now
            if let deadline, now >= deadline { return }
            var timeout: Duration? = nil
            if !pendingEvents.isEmpty || handle.hasPosted {
                timeout = .zero
            } else {
                if let date = timers.nextFireDate() {
                    timeout = date - now
                } else if !hasWatchedSources && holds == 0 {
                    return
                }
                if let deadline { timeout = min(timeout ?? deadline - now, deadline - now) }
            }
            let ready: [(token: UInt64, events: EpollEvents)]
            do {
                ready = try epoll.wait(timeout: timeout)
            } catch {
                // Not a condition a peer can cause (EINTR is retried): the loop cannot go on
                // watching anything, so every source fails with the error and `run` returns.
                failure = error
                for source in Array(sources.values) {
                    unregister(source)
                    source.loopCannotWatch(error)
                }
                deliverPendingEvents()
                return
            }
            for (token, events) in ready {
                if token == Self.wakeupToken {
                    handle.wakeup.drain()
                } else if let source = sources[token] {
                    source.handle(events, in: self)
                }
            }
        }
    }

    private var hasWatchedSources: Bool {
        sources.values.contains { $0.registration.registered != nil }
    }

    // MARK: Events

    /// Queues `event` for `stream`'s delegate; it is delivered in this loop's next iteration.
    package func enqueue(_ event: ByteStreamEvent, for stream: ByteStream) {
        pendingEvents.append { [unowned self] in self.deliver(event, to: stream) }
    }

    /// Queues `work` (a channel's event for its connection); it runs in this loop's next
    /// iteration, in order with the streams' events.
    package func enqueue(_ work: @escaping () -> Void) {
        pendingEvents.append(work)
    }

    /// Calls the delegate now, if the stream is still scheduled here and not closed.
    package func deliver(_ event: ByteStreamEvent, to stream: ByteStream) {
        guard stream.runLoop === self, stream.status != .closed, let delegate = stream.delegate else { return }
        delegate.stream(stream, handle: event)
    }

    private func deliverPendingEvents() {
        while !pendingEvents.isEmpty {
            let batch = pendingEvents
            pendingEvents.removeAll()
            for work in batch { work() }
        }
    }

    // MARK: Timers

    /// Adds a timer that fires once after `delay`, or every `interval` if one is given.
    @discardableResult
    public func addTimer(
        after delay: Duration, repeating interval: Duration? = nil, _ action: @escaping (RunLoopTimer) -> Void
    ) -> RunLoopTimer {
        timerSequence += 1
        let timer = RunLoopTimer(
            fireDate: ContinuousClock.now + delay, interval: interval.map { max($0, .milliseconds(1)) },
            sequence: timerSequence, action: action)
        timer.loop = self
        timers.push(timer)
        return timer
    }

    /// The number of timers waiting to fire (invalidated ones leave at once).
    package var pendingTimerCount: Int { timers.count }

    /// Takes an invalidated timer out of the heap.
    func removeTimer(_ timer: RunLoopTimer) { timers.remove(timer) }

    private func fireDueTimers() {
        let now = ContinuousClock.now
        var due: [RunLoopTimer] = []
        while let timer = timers.popDue(now: now) { due.append(timer) }
        for timer in due where timer.isValid {
            if let interval = timer.interval {
                timer.fireDate = max(timer.fireDate + interval, now)
                timers.push(timer)
            } else {
                timer.invalidate()
            }
            timer.action(timer)
        }
    }

    // MARK: Sources

    /// Adds `source`, giving it a token. It is watched once it wants something.
    package func register(_ source: any LoopSource) {
        source.registration.token = nextToken
        nextToken += 1
        sources[source.registration.token] = source
        updateInterest(source)
    }

    /// Removes `source` and stops watching its descriptor.
    package func unregister(_ source: any LoopSource) {
        forgetDescriptor(of: source)
        sources[source.registration.token] = nil
        source.registration.token = 0
    }

    /// Stops watching the descriptor the source had (before it closes or replaces it).
    package func forgetDescriptor(of source: any LoopSource) {
        if let descriptor = source.registration.descriptor, source.registration.registered != nil {
            epoll.remove(descriptor)
        }
        source.registration.registered = nil
        source.registration.descriptor = nil
    }

    /// Brings epoll in line with what `source` wants now.
    package func updateInterest(_ source: any LoopSource) {
        guard source.registration.token != 0 else { return }
        let wanted = source.desiredInterest
        if source.registration.descriptor != source.watchedDescriptor { forgetDescriptor(of: source) }
        guard let descriptor = source.watchedDescriptor, !wanted.isEmpty else {
            forgetDescriptor(of: source)
            return
        }
        do {
            if source.registration.registered == nil {
                try epoll.add(descriptor, interest: wanted, token: source.registration.token)
            } else if source.registration.registered != wanted {
                try epoll.modify(descriptor, interest: wanted, token: source.registration.token)
            }
            source.registration.registered = wanted
            source.registration.descriptor = descriptor
        } catch {
            source.registration.registered = nil
            source.registration.descriptor = nil
            source.loopCannotWatch(error)
        }
    }
}

@available(*, unavailable)
extension EpollRunLoop: Sendable {}

/// One blocking wait for a descriptor's readiness on a thread's private loop.
private final class ReadinessWait: LoopSource {
    let descriptor: FileDescriptor
    let interest: EpollEvents
    private(set) var isReady = false
    private(set) var failure: (any Error)?
    var registration = LoopRegistration()

    init(descriptor: FileDescriptor, interest: EpollEvents) {
        self.descriptor = descriptor
        self.interest = interest
    }

    var watchedDescriptor: FileDescriptor? { descriptor }
    var desiredInterest: EpollEvents { isReady || failure != nil ? [] : interest }

    func handle(_ events: EpollEvents, in loop: EpollRunLoop) {
        isReady = true
        loop.updateInterest(self)
        loop.stop()
    }

    func loopCannotWatch(_ error: any Error) { failure = error }
}

/// Keeps a run loop's ``EpollRunLoop/run()`` from returning for want of anything to wait for,
/// while work elsewhere (on a worker thread, another thread's input) will post its answer back:
/// the loop waits for posts until ``release()``. Made and released on the loop's thread.
package final class RunLoopHold {
    private weak var loop: EpollRunLoop?

    /// Holds `loop` until ``release()``.
    package init(_ loop: EpollRunLoop) {
        self.loop = loop
        loop.holds += 1
    }

    /// Lets the loop return once it has nothing else to do (again: nothing).
    package func release() {
        guard let loop else { return }
        self.loop = nil
        loop.holds -= 1
    }

    /// Whether it still holds its loop.
    package var isHolding: Bool { loop != nil }
}
