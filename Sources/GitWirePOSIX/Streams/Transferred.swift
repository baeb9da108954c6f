/// Hands a value that is not `Sendable` to another thread that is its only user from then on
/// (work moved to a worker thread and back). The sender must not touch it meanwhile.
package struct Transferred<Value>: @unchecked Sendable {
    /// The value.
    package let value: Value

    /// Wraps `value` for the hand-over.
    package init(_ value: Value) { self.value = value }
}

/// Runs `work` on the ``WorkerPool`` and its result, back on `loop`'s thread, in `completion`.
/// The loop keeps running (a ``RunLoopHold``) until the completion has run.
package func runOffLoop<Output>(
    in loop: EpollRunLoop, _ work: @escaping () throws -> Output,
    completion: @escaping (Result<Output, any Error>) -> Void
) {
    let hold = Transferred(RunLoopHold(loop))
    let handle = loop.handle
    let job = Transferred(work)
    let finish = Transferred(completion)
    WorkerPool.shared.submit {
        let result = Transferred(Result { try job.value() })
        let posted = handle.post {
            hold.value.release()
            finish.value(result.value)
        }
        if !posted { finish.value(result.value) }
    }
}
