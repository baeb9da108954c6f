import CGitWire
import Glibc

/// Readiness bits for epoll interest and events.
struct EpollEvents: OptionSet {
    let rawValue: UInt32
    static let readable = EpollEvents(rawValue: EPOLLIN.rawValue)
    static let writable = EpollEvents(rawValue: EPOLLOUT.rawValue)
    static let hangUp = EpollEvents(rawValue: EPOLLHUP.rawValue)
    static let error = EpollEvents(rawValue: EPOLLERR.rawValue)
}

/// An epoll instance. Registrations carry a 64-bit token instead of a pointer, so a stale event
/// for a source removed in an earlier callback is recognised and dropped.
final class Epoll {
    let descriptor: FileDescriptor
    private var buffer = [cgw_epoll_event](repeating: cgw_epoll_event(), count: 256)

    init() throws {
        descriptor = FileDescriptor(rawValue: try retryingInterrupts("epoll_create1") { cgw_epoll_create() })
    }

    deinit { try? descriptor.close() }

    func add(_ fd: FileDescriptor, interest: EpollEvents, token: UInt64) throws {
        _ = try retryingInterrupts("epoll_ctl") {
            cgw_epoll_ctl(descriptor.rawValue, EPOLL_CTL_ADD, fd.rawValue, interest.rawValue, token)
        }
    }

    func modify(_ fd: FileDescriptor, interest: EpollEvents, token: UInt64) throws {
        _ = try retryingInterrupts("epoll_ctl") {
            cgw_epoll_ctl(descriptor.rawValue, EPOLL_CTL_MOD, fd.rawValue, interest.rawValue, token)
        }
    }

    func remove(_ fd: FileDescriptor) {
        _ = cgw_epoll_ctl(descriptor.rawValue, EPOLL_CTL_DEL, fd.rawValue, 0, 0)
    }

    /// Waits up to `timeout` (nil: forever) and returns the ready tokens with their events.
    func wait(timeout: Duration?) throws -> [(token: UInt64, events: EpollEvents)] {
        let milliseconds = timeout.map { CInt(clamping: GitWire.milliseconds(rounding: max($0, .zero))) } ?? -1
        let count = cgw_epoll_wait(descriptor.rawValue, &buffer, CInt(buffer.count), milliseconds)
        if count == -1 {
            let error = Errno.current
            if error == .interrupted { return [] }
            throw SystemCallError("epoll_wait", error)
        }
        return buffer.prefix(Int(count)).map { ($0.token, EpollEvents(rawValue: $0.events)) }
    }
}

/// A non-blocking eventfd: one thread signals, the loop's thread wakes up and drains it.
final class EventFD: Sendable {
    let descriptor: FileDescriptor

    init() throws {
        descriptor = FileDescriptor(rawValue: try retryingInterrupts("eventfd") { cgw_eventfd() })
    }

    deinit { try? descriptor.close() }

    /// Wakes up whoever waits on the descriptor. Safe from any thread.
    func signal() {
        var one: UInt64 = 1
        _ = try? retryingNonBlocking("write") { Glibc.write(descriptor.rawValue, &one, 8) }
    }

    /// Resets the counter after a wake-up.
    func drain() {
        var value: UInt64 = 0
        _ = try? retryingNonBlocking("read") { Glibc.read(descriptor.rawValue, &value, 8) }
    }
}
