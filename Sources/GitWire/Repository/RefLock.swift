/// A git lock file: `<path>.lock`, created exclusively, written and closed at once, then renamed
/// over `<path>` on commit or removed on rollback. While it exists, git (and gitwire) will not
/// change `<path>`, so a reader never sees a half-written file and two writers never interleave.
/// Made as git makes its lock files: mode `0666` less the umask, then opened up as
/// `core.sharedRepository` says.
///
/// A lock holds a path, not a descriptor (as git's lock files do once written), so a transaction
/// of any number of refs needs no more than one descriptor at a time. Until it is committed or
/// rolled back, the lock file is removed if a signal kills the process (``SignalCleanup``).
final class RefLock {
    /// The file the lock guards.
    let path: String
    /// The lock file.
    var lockPath: String { "\(path).lock" }
    /// Set only once this value has created the lock file: a lock someone else holds is never
    /// removed (deinit runs for an initializer that throws, too).
    private var isHeld = false

    /// Takes the lock on `path` and writes `content` into it; throws ``LockHeldError`` if another
    /// process holds it, a ``SystemCallError`` if it cannot be created or written (the lock is
    /// then not left behind).
    init(_ path: String, content: [UInt8]) throws {
        self.path = path
        let lockPath = "\(path).lock"
        let file: File
        do {
            file = try SignalCleanup.deferringSignals {
                let file = try File.create(lockPath, mode: 0o666)
                SignalCleanup.removeFileOnSignal(lockPath)
                // As git's lock files: opened up as `core.sharedRepository` says.
                do { try FileSystem.adjustSharedPermissions(lockPath) } catch {
                    try? FileSystem.remove(lockPath)
                    throw error
                }
                return file
            }
        } catch let error as SystemCallError where error.errno == .fileExists {
            throw LockHeldError(lockPath: lockPath)
        }
        isHeld = true
        do {
            if !content.isEmpty { try file.write(content[...]) }
            try file.close()
        } catch {
            try? FileSystem.remove(lockPath)
            isHeld = false
            throw error
        }
    }

    deinit { rollback() }

    /// Makes the new content visible: the lock file becomes ``path``. If that fails, the lock
    /// file is removed and ``path`` stays as it was.
    func commit() throws {
        guard isHeld else { return }
        isHeld = false
        do {
            try FileSystem.rename(lockPath, to: path)
        } catch {
            try? FileSystem.remove(lockPath)
            throw error
        }
    }

    /// Removes ``path`` (a deleted ref's loose file; a directory there, made for the locks of
    /// refs below it, is not one), then the lock.
    func commitDeletion() throws {
        guard isHeld else { return }
        defer { rollback() }
        if !FileSystem.isDirectory(path) { try FileSystem.remove(path) }
    }

    /// Drops the lock and its content; ``path`` stays as it was.
    func rollback() {
        guard isHeld else { return }
        isHeld = false
        try? FileSystem.remove(lockPath)
    }
}
