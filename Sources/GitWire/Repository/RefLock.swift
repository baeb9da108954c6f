/// A git lock file: `<path>.lock`, created exclusively, written, then renamed over `<path>` on
/// commit or removed on rollback. While it exists, git (and gitwire) will not change `<path>`, so
/// a reader never sees a half-written file and two writers never interleave.
final class RefLock {
    /// The file the lock guards.
    let path: String
    private var file: File?
    private var isDone = false

    /// Takes the lock on `path`; throws ``LockHeldError`` if another process holds it.
    init(_ path: String) throws {
        self.path = path
        do {
            file = try File.create("\(path).lock", mode: 0o644)
        } catch let error as SystemCallError where error.errno == .fileExists {
            throw LockHeldError(lockPath: "\(path).lock")
        }
    }

    deinit { rollback() }

    /// Writes the new content into the lock file (not yet visible at ``path``).
    func write(_ bytes: [UInt8]) throws {
        guard let file else { throw LockHeldError(lockPath: "\(path).lock") }
        try file.write(bytes[...])
    }

    /// Makes the new content visible: the lock file becomes ``path``.
    func commit() throws {
        guard let file, !isDone else { return }
        try file.close()
        self.file = nil
        try FileSystem.rename("\(path).lock", to: path)
        isDone = true
    }

    /// Drops the lock and its content; ``path`` stays as it was. A lock this value never took
    /// (someone else's) is left alone.
    func rollback() {
        guard !isDone, let file else { return }
        isDone = true
        try? file.close()
        self.file = nil
        try? FileSystem.remove("\(path).lock")
    }
}
