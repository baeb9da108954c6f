import Glibc

/// A first-in, first-out queue between threads with a bounded capacity: each item weighs what its
/// producer says, ``put(_:weight:)`` waits while the items waiting weigh the capacity or more,
/// ``take()`` while the queue is empty, and both stop waiting once it is closed.
/// Built on a `pthread_mutex_t` and two `pthread_cond_t`s (which ThreadSanitizer understands).
package final class BlockingQueue<Item: Sendable>: @unchecked Sendable {
    // @unchecked: `items` and `closed` are only touched with the mutex held; the mutex and the
    // conditions live at fixed addresses for the object's lifetime.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let notEmpty: UnsafeMutablePointer<pthread_cond_t>
    private let notFull: UnsafeMutablePointer<pthread_cond_t>
    private var capacity: Int
    /// The items, from `head` on; taken ones are nil (so nothing they hold stays alive) until the
    /// array is compacted.
    private var items: [(item: Item?, weight: Int)] = []
    private var weight = 0
    private var head = 0
    private var closed = false

    /// Makes an empty queue whose items may weigh `capacity` in all (at least one).
    package init(capacity: Int) {
        self.capacity = max(1, capacity)
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        notEmpty = .allocate(capacity: 1)
        notEmpty.initialize(to: pthread_cond_t())
        notFull = .allocate(capacity: 1)
        notFull.initialize(to: pthread_cond_t())
        precondition(pthread_mutex_init(mutex, nil) == 0 && pthread_cond_init(notEmpty, nil) == 0)
        precondition(pthread_cond_init(notFull, nil) == 0)
    }

    deinit {
        pthread_cond_destroy(notFull)
        pthread_cond_destroy(notEmpty)
        pthread_mutex_destroy(mutex)
        for pointer in [notFull, notEmpty] {
            pointer.deinitialize(count: 1)
            pointer.deallocate()
        }
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Changes what the items may weigh in all (at least one); a put waiting for room goes on if
    /// there is room now. The items already in the queue stay.
    package func setCapacity(_ capacity: Int) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        self.capacity = max(1, capacity)
        pthread_cond_broadcast(notFull)
    }

    /// Adds `item` at the end, waiting while the queue is full (an item of no weight never
    /// waits). Returns false (and drops the item) if the queue is closed.
    @discardableResult
    package func put(_ item: Item, weight: Int = 1) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !closed && weight > 0 && self.weight >= capacity { pthread_cond_wait(notFull, mutex) }
        guard !closed else { return false }
        items.append((item, weight))
        self.weight += weight
        pthread_cond_signal(notEmpty)
        return true
    }

    /// Adds `item` at the end if there is room now; returns false (and drops it) if the queue is
    /// full or closed.
    package func offer(_ item: Item, weight: Int = 1) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard !closed && self.weight < capacity else { return false }
        items.append((item, weight))
        self.weight += weight
        pthread_cond_signal(notEmpty)
        return true
    }

    /// Removes and returns the first item, waiting while the queue is empty; nil once the queue
    /// is closed and empty.
    package func take() -> Item? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !closed && head == items.count { pthread_cond_wait(notEmpty, mutex) }
        guard head < items.count else { return nil }
        let (item, weight) = items[head]
        items[head].item = nil
        self.weight -= weight
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64 && head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        pthread_cond_signal(notFull)
        return item
    }

    /// Removes and returns the first item if there is one now; nil if the queue is empty (closed
    /// or not), without waiting.
    package func poll() -> Item? {
        pthread_mutex_lock(mutex)
        let empty = head == items.count
        pthread_mutex_unlock(mutex)
        return empty ? nil : take()
    }

    /// Ends the queue: waiting calls return, later puts are refused, and takes return what is left
    /// (all of it, or nothing with `discardingItems`) and then nil.
    package func close(discardingItems: Bool = false) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        closed = true
        if discardingItems {
            items.removeAll()
            head = 0
            weight = 0
        }
        pthread_cond_broadcast(notEmpty)
        pthread_cond_broadcast(notFull)
    }
}

/// A thread running one closure, which its owner waits for with ``join()``.
package final class JoinableThread {
    private var thread: pthread_t?

    /// Starts `body` on a new thread.
    package init(_ body: @escaping @Sendable () -> Void) throws { thread = try startThread(body) }

    /// Waits for the thread to end (at once if it already has been waited for).
    package func join() {
        guard let thread else { return }
        pthread_join(thread, nil)
        self.thread = nil
    }

    deinit { join() }
}
