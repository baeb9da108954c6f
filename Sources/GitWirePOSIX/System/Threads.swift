import CGitWire
import GitWireCore
import Glibc

/// Runs a body on several threads at once and waits for all of them to return.
@usableFromInline package enum WorkerThreads {
    /// The number of processors online (at least 1).
    @usableFromInline package static var processorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// Runs `body(0)` to `body(count - 1)`, each on a thread of its own (index 0 on the calling thread),
    /// and returns when all of them have returned. A thread that cannot be started runs its index on
    /// the calling thread instead, so every index runs exactly once.
    package static func run(count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        guard count > 1 else {
            body(0)
            return
        }
        var threads: [pthread_t] = []
        var inline: [Int] = []
        for index in 1..<count {
            if let thread = try? startThread({ body(index) }) {
                threads.append(thread)
            } else {
                inline.append(index)
            }
        }
        body(0)
        for index in inline { body(index) }
        for thread in threads { pthread_join(thread, nil) }
    }
}

/// Starts `body` on a new thread, which the caller joins or detaches.
package func startThread(_ body: @escaping @Sendable () -> Void) throws -> pthread_t {
    let job = Unmanaged.passRetained(ThreadJob(body))
    var thread = pthread_t()
    let status = pthread_create(
        &thread, nil,
        { raw in
            Unmanaged<ThreadJob>.fromOpaque(raw!).takeRetainedValue().run()
            return nil
        }, job.toOpaque())
    guard status == 0 else {
        job.release()
        throw SystemCallError("pthread_create", Errno(rawValue: status))
    }
    return thread
}

/// An identifier of the calling thread, never 0.
package func currentThreadID() -> UInt { UInt(pthread_self()) }

/// Starts `body` on a new detached thread.
package func startDetachedThread(_ body: @escaping @Sendable () -> Void) throws {
    pthread_detach(try startThread(body))
}

/// A closure handed to a new thread.
private final class ThreadJob: Sendable {
    package let run: @Sendable () -> Void

    package init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}

/// Lowers the calling thread's scheduling priority by `steps` nice values (at most to 19; on Linux
/// each thread has its own), so that it runs on the time the process's other threads leave. Does
/// nothing if the system refuses.
package func lowerCurrentThreadPriority(by steps: Int32) { _ = cgw_lower_thread_priority(steps) }

/// Gives the memory the allocator holds free back to the system (glibc's `malloc_trim`), in every
/// arena: after a thread that allocated much has ended, its arena's free pages would otherwise
/// stay resident.
package func releaseFreeMemory() { cgw_malloc_trim() }
