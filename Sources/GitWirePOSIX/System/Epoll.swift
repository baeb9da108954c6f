import CGitWire
import GitWireCore
import Glibc

/// Readiness bits for epoll interest and events.
package struct EpollEvents: OptionSet {
    package init(rawValue: UInt32) { self.rawValue = rawValue }
    package let rawValue: UInt32
    package static let readable = EpollEvents(rawValue: EPOLLIN.rawValue)
    package static let writable = EpollEvents(rawValue: EPOLLOUT.rawValue)
    package static let hangUp = EpollEvents(rawValue: EPOLLHUP.rawValue)
    package static let error = EpollEvents(rawValue: EPOLLERR.rawValue)
}

/// An epoll instance. Registrations carry a 64-bit token instead of a pointer, so a stale event
/// for a source removed in an earlier callback is recognised and dropped.
package final class Epoll {
    package let descriptor: FileDescriptor
    private var buffer = [cgw_epoll_event](repeating: cgw_epoll_event(), count: 256)

    package init() throws {
        descriptor = FileDescriptor(rawValue: try retryingInterrupts("epoll_create1") { cgw_epoll_create() })
    }

    deinit { try? descriptor.close() }

    package func add(_ fd: FileDescriptor, interest: EpollEvents, token: UInt64) throws {
        _ = try retryingInterrupts("epoll_ctl") {
            cgw_epoll_ctl(descriptor.rawValue, EPOLL_CTL_ADD, fd.rawValue, interest.rawValue, token)
        }
    }

    package func modify(_ fd: FileDescriptor, interest: EpollEvents, token: UInt64) throws {
        _ = try retryingInterrupts("epoll_ctl") {
            cgw_epoll_ctl(descriptor.rawValue, EPOLL_CTL_MOD, fd.rawValue, interest.rawValue, token)
        }
    }

    package func remove(_ fd: FileDescriptor) {
        _ = cgw_epoll_ctl(descriptor.rawValue, EPOLL_CTL_DEL, fd.rawValue, 0, 0)
    }

    /// Waits up to `timeout` (nil: forever) and returns the ready tokens with their events.
    package func wait(timeout: Duration?) throws -> [(token: UInt64, events: EpollEvents)] {
        let milliseconds = timeout.map { CInt(clamping: GitWirePOSIX.milliseconds(rounding: max($0, .zero))) } ?? -1
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
package final class EventFD: Sendable {
    package let descriptor: FileDescriptor

    package init() throws {
        descriptor = FileDescriptor(rawValue: try retryingInterrupts("eventfd") { cgw_eventfd() })
    }

    deinit { try? descriptor.close() }

    /// Wakes up whoever waits on the descriptor. Safe from any thread.
    package func signal() {
        var one: UInt64 = 1
        _ = try? retryingNonBlocking("write") { Glibc.write(descriptor.rawValue, &one, 8) }
    }

    /// Resets the counter after a wake-up.
    package func drain() {
        var value: UInt64 = 0
        _ = try? retryingNonBlocking("read") { Glibc.read(descriptor.rawValue, &value, 8) }
    }
}
