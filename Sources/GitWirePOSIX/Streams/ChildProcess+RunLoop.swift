import GitWireCore
import Glibc

extension ChildProcess {
    /// Reaps the process from `loop` without blocking it: the loop watches the process's pidfd
    /// and reaps it the moment it ends (where the kernel has no pidfd, it checks every 10 ms).
    /// A process still running after `grace` is sent `SIGTERM`, and `SIGKILL` a second later;
    /// a nil `grace` waits as long as the process runs. `onExit` gets the exit code, on the loop.
    ///
    /// This is the one way gitwire reaps a child: the blocking ``reap(grace:)`` runs it on a
    /// private loop.
    public func reap(in loop: EpollRunLoop, grace: Duration? = .seconds(5), onExit: ((Int32) -> Void)? = nil) {
        reap(in: loop, grace: grace, terminatingFirst: true, onExit: onExit)
    }

    /// Waits up to `grace` for the process to end, then kills it (`SIGKILL`), so no zombie is
    /// left behind. Returns the exit code.
    @discardableResult
    public func reap(grace: Duration = .seconds(5)) -> Int32 {
        if let code = exitCodeIfEnded() { return code }
        guard let loop = try? EpollRunLoop() else {
            kill(pid, SIGKILL)
            return (try? wait()) ?? 128 + SIGKILL
        }
        var code: Int32?
        reap(in: loop, grace: grace, terminatingFirst: false) { code = $0 }
        loop.run()
        return code ?? (try? wait()) ?? 128 + SIGKILL
    }

    private func reap(in loop: EpollRunLoop, grace: Duration?, terminatingFirst: Bool, onExit: ((Int32) -> Void)?) {
        if let code = exitCodeIfEnded() {
            onExit?(code)
            return
        }
        let watch = ChildExitWatch(process: self, descriptor: exitDescriptor(), onExit: onExit, loop: loop)
        watch.start()
        if let grace { watch.end(after: grace, terminatingFirst: terminatingFirst) }
    }

    /// Starts reaping the process from `loop` the moment it ends, for as long as it runs; `onExit`
    /// gets the exit code on the loop (at once if it has ended already, and then nil is
    /// returned). The returned watch ends the process later if asked (``ChildExitWatch/end(after:terminatingFirst:)``).
    func watchExit(in loop: EpollRunLoop, onExit: @escaping (Int32) -> Void) -> ChildExitWatch? {
        if let code = exitCodeIfEnded() {
            onExit(code)
            return nil
        }
        let watch = ChildExitWatch(process: self, descriptor: exitDescriptor(), onExit: onExit, loop: loop)
        watch.start()
        return watch
    }
}

/// Watches a child in a run loop until it has ended and is reaped: through its pidfd, or every
/// 10 ms where the kernel has none; after its grace, it is ended by signals.
final class ChildExitWatch: LoopSource {
    private let process: ChildProcess
    private var descriptor: FileDescriptor?
    private weak var loop: EpollRunLoop?
    private var timers: [RunLoopTimer] = []
    private var onExit: ((Int32) -> Void)?
    package var registration = LoopRegistration()

    init(process: ChildProcess, descriptor: FileDescriptor?, onExit: ((Int32) -> Void)?, loop: EpollRunLoop) {
        self.process = process
        self.descriptor = descriptor
        self.onExit = onExit
        self.loop = loop
    }

    deinit { try? descriptor?.close() }

    /// Set once the child is reaped.
    private var isFinished = false
    /// Set once the child has been given its grace.
    private var isEnding = false

    /// Starts watching; the loop (or its timers) hold the watch until the child is reaped.
    func start() {
        guard let loop else { return }
        if descriptor != nil {
            loop.register(self)
        } else {
            timers.append(
                loop.addTimer(after: .milliseconds(2), repeating: .milliseconds(10)) { [self] _ in checkEnded() })
        }
    }

    /// Ends the child if it still runs after `grace`: `SIGTERM` first and `SIGKILL` a second later
    /// if `terminatingFirst`, else `SIGKILL`. Once only; nothing once the child is reaped.
    func end(after grace: Duration, terminatingFirst: Bool) {
        guard let loop, !isFinished, !isEnding else { return }
        isEnding = true
        timers.append(
            loop.addTimer(after: grace) { [self] _ in
                guard terminatingFirst else { return kill() }
                process.terminate()
                timers.append(loop.addTimer(after: .seconds(1)) { [self] _ in kill() })
            })
    }

    private func kill() {
        if process.exitCodeIfEnded() == nil { Glibc.kill(process.pid, SIGKILL) }
        finish(code: (try? process.wait()) ?? 128 + SIGKILL)
    }

    private func checkEnded() {
        if let code = process.exitCodeIfEnded() { finish(code: code) }
    }

    package var watchedDescriptor: FileDescriptor? { descriptor }
    package var desiredInterest: EpollEvents { descriptor == nil ? [] : .readable }

    package func handle(_ events: EpollEvents, in loop: EpollRunLoop) { checkEnded() }

    package func loopCannotWatch(_ error: any Error) {
        // Watched by polling from now on.
        try? descriptor?.close()
        descriptor = nil
        guard let loop else { return }
        timers.append(
            loop.addTimer(after: .milliseconds(2), repeating: .milliseconds(10)) { [self] _ in checkEnded() })
    }

    private func finish(code: Int32) {
        guard !isFinished else { return }
        isFinished = true
        for timer in timers { timer.invalidate() }
        timers = []
        if let loop, registration.token != 0 { loop.unregister(self) }
        try? descriptor?.close()
        descriptor = nil
        let onExit = self.onExit
        self.onExit = nil
        onExit?(code)
    }
}
