import GitWireCore

extension ChildProcess {
    /// Reaps the process from `loop` without blocking it: checks every few milliseconds and kills
    /// the process if it has not ended after `grace`.
    public func reap(in loop: EpollRunLoop, grace: Duration = .seconds(5)) {
        if exitCodeIfEnded() != nil { return }
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
