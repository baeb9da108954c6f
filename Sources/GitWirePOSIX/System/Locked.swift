import Glibc

/// A value that any thread may read and change, one at a time, under a `pthread_mutex_t`.
///
/// gitwire uses this instead of the standard library's `Synchronization.Mutex` so that
/// ThreadSanitizer can check the code it guards. `Mutex` takes its lock on Linux with an atomic
/// compare-and-swap inlined into the caller, but when the lock is contended it spins and then
/// lets the kernel hand the lock over (`FUTEX_LOCK_PI`/`FUTEX_UNLOCK_PI`) inside the standard
/// library, which is not built with ThreadSanitizer: the sanitizer never sees that hand-over, so
/// it reports every contended `Mutex` as a data race on the value it guards (a two-thread counter
/// under `Mutex` counts correctly and is still reported). ThreadSanitizer intercepts
/// `pthread_mutex_lock` and `pthread_mutex_unlock` and knows what they order. An uncontended
/// lock costs about the same either way.
package final class Locked<Value: ~Copyable>: @unchecked Sendable {
    // @unchecked: the value is only touched between pthread_mutex_lock and pthread_mutex_unlock,
    // and the mutex lives at a fixed address for the object's lifetime.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    // Out of line rather than a stored property: Swift gives a stored property of an empty type
    // (`Locked<Void>`, a plain lock) the object's own address, so ThreadSanitizer's tracking of
    // the `inout` access would overlap the object header, which other threads read without the
    // lock (to find the fields), and be reported as a race.
    private let value: UnsafeMutablePointer<Value>

    /// Guards `value`.
    package init(_ value: consuming sending Value) {
        self.value = .allocate(capacity: 1)
        self.value.initialize(to: value)
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed with \(status)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }

    /// Runs `body` with the value while holding the lock, and returns what it returns. `body` must
    /// not take the same lock again.
    package func withLock<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}
