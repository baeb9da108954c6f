import CGitWire
import Glibc

/// Files and directories removed if the process is killed by `SIGINT`, `SIGTERM`, `SIGHUP` or
/// `SIGQUIT`, as git's `tempfile.c` removes its lock and temporary files: lock files, temporary
/// packs and indexes, a clone's new repository.
///
/// Paths are registered while they exist half-made and forgotten once they are complete (or
/// removed by the ordinary path). The handler, installed by ``install()`` (the command line
/// does; a library user may), does only async-signal-safe work on the registered paths (unlink,
/// and for a directory `openat`/`getdents64`/`unlinkat`), then dies by the same signal with its
/// default action, so a shell sees 130 for `SIGINT` and 143 for `SIGTERM`.
package enum SignalCleanup {
    private static let slots = Locked<[String: CInt]>([:])

    /// Removes the file at `path` if a signal kills the process before ``forget(_:)``.
    package static func removeFileOnSignal(_ path: String) { register(path, kind: CGW_CLEANUP_FILE) }

    /// Removes the directory at `path` and everything below it if a signal kills the process
    /// before ``forget(_:)``; with `keepDirectory`, only what is below it (a clone into a
    /// directory that existed and was empty, as git's clone leaves it).
    package static func removeTreeOnSignal(_ path: String, keepDirectory: Bool) {
        register(path, kind: keepDirectory ? CGW_CLEANUP_CONTENTS : CGW_CLEANUP_TREE)
    }

    /// Stops removing `path` on a signal (it is complete, renamed or removed).
    package static func forget(_ path: String) {
        let slot = slots.withLock { $0.removeValue(forKey: path) }
        if let slot { cgw_cleanup_unregister(slot) }
    }

    /// Whether `path` is registered (for tests).
    package static func isRegistered(_ path: String) -> Bool { slots.withLock { $0[path] != nil } }

    /// Removes every registered path now, as the handler would: for a process about to exit
    /// with paths half-made, as git's `die` removes its lock and temporary files on its way out.
    package static func removeAllNow() { cgw_cleanup_now() }

    /// Installs the handler for `SIGINT`, `SIGTERM`, `SIGHUP` and `SIGQUIT`. `SIGPIPE` stays
    /// ignored: gitwire's writes to a closed pipe fail with `EPIPE`, and that error takes the
    /// ordinary way out, which removes the same files.
    package static func install() throws {
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] where cgw_cleanup_install(signal) == -1 {
            throw SystemCallError("sigaction", Errno.current)
        }
    }

    private static func register(_ path: String, kind: CInt) {
        slots.withLock { slots in
            guard slots[path] == nil else { return }
            let slot = cgw_cleanup_register(path, kind)
            if slot >= 0 { slots[path] = slot }
        }
    }
}

extension SignalCleanup {
    /// Runs `body` with the cleanup signals blocked on this thread and, should another thread
    /// take one meanwhile, put off until `body` has returned, so that a file it creates and
    /// registers cannot be left behind by a signal that lands in between.
    package static func deferringSignals<T>(_ body: () throws -> T) rethrows -> T {
        var blocked = sigset_t()
        var previous = sigset_t()
        sigemptyset(&blocked)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] { sigaddset(&blocked, signal) }
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        cgw_cleanup_enter()
        defer {
            cgw_cleanup_leave()
            pthread_sigmask(SIG_SETMASK, &previous, nil)
        }
        return try body()
    }
}
