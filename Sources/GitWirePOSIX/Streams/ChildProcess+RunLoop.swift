import GitWireCore

extension ChildProcess {
    /// Reaps the process from `loop` without blocking it: the loop watches the process's pidfd
    /// and reaps it the moment it ends (where the kernel has no pidfd, it checks every 10 ms).
    /// A process still running after `grace` is killed.
    public func reap(in loop: EpollRunLoop, grace: Duration = .seconds(5)) {
        if exitCodeIfEnded() != nil { return }
        if let descriptor = exitDescriptor() {
            ChildExitWatch(process: self, descriptor: descriptor, grace: grace, loop: loop).start()
            return
        }
        let deadline = ContinuousClock.now + grace
        loop.addTimer(after: .milliseconds(2), repeating: .milliseconds(10)) { timer in
            if self.exitCodeIfEnded() != nil {
                timer.invalidate()
            } else if ContinuousClock.now >= deadline {
                timer.invalidate()
                self.terminate()
                self.reap(grace: .seconds(1))
            }
        }
    }
}

/// Watches a child's pidfd in a run loop until the child has ended and is reaped.
final class ChildExitWatch: LoopSource {
    private let process: ChildProcess
    private var descriptor: FileDescriptor?
    private let grace: Duration
    private weak var loop: EpollRunLoop?
    private var graceTimer: RunLoopTimer?
    package var registration = LoopRegistration()

    init(process: ChildProcess, descriptor: FileDescriptor, grace: Duration, loop: EpollRunLoop) {
        self.process = process
        self.descriptor = descriptor
        self.grace = grace
        self.loop = loop
    }

    deinit { try? descriptor?.close() }

    func start() {
        guard let loop else { return }
        loop.register(self)
        // The loop holds the source while it is registered; the timer keeps the kill promise.
        graceTimer = loop.addTimer(after: grace) { [self] _ in
            process.terminate()
            process.reap(grace: .seconds(1))
            finish()
        }
    }

    package var watchedDescriptor: FileDescriptor? { descriptor }
    package var desiredInterest: EpollEvents { descriptor == nil ? [] : .readable }

    package func handle(_ events: EpollEvents, in loop: EpollRunLoop) {
        if process.exitCodeIfEnded() != nil { finish() }
    }

    package func loopCannotWatch(_ error: any Error) {
        process.reap(grace: grace)
        finish()
    }

    private func finish() {
        graceTimer?.invalidate()
        graceTimer = nil
        if let loop, registration.token != 0 { loop.unregister(self) }
        try? descriptor?.close()
        descriptor = nil
    }
}
