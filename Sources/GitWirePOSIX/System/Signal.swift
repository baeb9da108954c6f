import Glibc

/// A one-shot signal between threads: ``wait(timeout:)`` returns once ``signal()`` has been
/// called (at once if it was already), or when the timeout passes. Built on a `pthread_mutex_t`
/// and a `pthread_cond_t` (which ThreadSanitizer understands).
package final class OneShotSignal: @unchecked Sendable {
    // @unchecked: `signalled` is only touched with the mutex held; the mutex and the condition
    // live at fixed addresses for the object's lifetime.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var signalled = false

    package init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        precondition(pthread_mutex_init(mutex, nil) == 0 && pthread_cond_init(condition, &attributes) == 0)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deinitialize(count: 1)
        condition.deallocate()
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Wakes the waiter (and every later wait returns at once).
    package func signal() {
        pthread_mutex_lock(mutex)
        signalled = true
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Waits for ``signal()`` at most `timeout`; true if it came.
    @discardableResult
    package func wait(timeout: Duration) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = Int(deadline.tv_nsec) + Int(attoseconds / 1_000_000_000)
        deadline.tv_sec += Int(seconds) + nanoseconds / 1_000_000_000
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !signalled {
            if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT { return signalled }
        }
        return true
    }
}
