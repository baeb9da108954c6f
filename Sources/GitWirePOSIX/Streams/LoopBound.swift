import GitWireCore

/// A value that lives on one run loop's thread but is named from others (in `Sendable` closures
/// posted to the loop): only the loop's thread may touch ``value``. Every build, release builds
/// included, stops the process when another thread touches it while the loop runs, as swift-nio's
/// `NIOLoopBound` checks `inEventLoop` with a precondition: the check is an atomic load and a
/// comparison with `pthread_self()`, a few nanoseconds, made a handful of times per operation
/// (never per byte).
package final class LoopBound<Value>: @unchecked Sendable {
    private var storage: Value?
    private let handle: RunLoopHandle

    /// A value bound to `loop`; made on the loop's thread.
    package init(_ value: Value? = nil, on loop: EpollRunLoop) {
        storage = value
        handle = loop.handle
        check()
    }

    /// The value; touch it only from inside the loop.
    package var value: Value? {
        get {
            check()
            return storage
        }
        set {
            check()
            storage = newValue
        }
    }

    @inline(__always)
    private func check() {
        precondition(handle.isRunningOnCurrentThreadOrIdle, "a LoopBound value was touched off its run loop's thread")
    }
}
