/// Something with a descriptor that a run loop watches: a stream channel or a listening socket.
protocol LoopSource: AnyObject {
    /// The descriptor to watch; nil while there is none (before a connect starts).
    var watchedDescriptor: FileDescriptor? { get }
    /// What the source wants to hear about now; empty means "take me out of epoll for now".
    var desiredInterest: EpollEvents { get }
    /// The loop's bookkeeping: the token and what is registered with epoll.
    var registration: LoopRegistration { get set }
    /// Handles readiness reported by epoll.
    func handle(_ events: EpollEvents, in loop: EpollRunLoop)
}

/// A source's token in its run loop and the interest registered with epoll for it.
struct LoopRegistration {
    var token: UInt64 = 0
    var registered: EpollEvents?
    var descriptor: FileDescriptor?
}
