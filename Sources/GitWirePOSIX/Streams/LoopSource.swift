import GitWireCore

/// Something with a descriptor that a run loop watches: a stream channel or a listening socket.
package protocol LoopSource: AnyObject {
    /// The descriptor to watch; nil while there is none (before a connect starts).
    var watchedDescriptor: FileDescriptor? { get }
    /// What the source wants to hear about now; empty means "take me out of epoll for now".
    var desiredInterest: EpollEvents { get }
    /// The loop's bookkeeping: the token and what is registered with epoll.
    var registration: LoopRegistration { get set }
    /// Handles readiness reported by epoll.
    func handle(_ events: EpollEvents, in loop: EpollRunLoop)
    /// The loop cannot watch the source any more (epoll refused its descriptor, or the loop's
    /// wait failed): the source fails with `error` and tells whoever waits on it.
    func loopCannotWatch(_ error: any Error)
}

/// A source's token in its run loop and the interest registered with epoll for it.
package struct LoopRegistration {
    package var token: UInt64 = 0
    package var registered: EpollEvents?
    package var descriptor: FileDescriptor?
}
