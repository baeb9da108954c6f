/// A configuration file changed in place as `git config` changes it: `<path>.lock` created
/// exclusively (a lock that exists, stale or not, is refused as git refuses it), the file read,
/// edited by a ``ConfigEditor``, the new text written into the lock with the old file's
/// permissions and renamed over the file. A symbolic link is followed to the file it names, as
/// git's lock files follow it. On any failure, or a signal, the lock is removed and the file is
/// as it was.
package enum ConfigFileEdit {
    /// The lock exists: git's `could not lock config file <path>: File exists`.
    package struct LockedError: GitWireError, Hashable, Sendable {
        /// The configuration file as named to ``edit(_:_:)``.
        package let path: String
        /// What kind of failure this is: ``GitWireErrorKind/system``.
        package var kind: GitWireErrorKind { .system }
        /// git's message (after `error: `).
        package var description: String { "could not lock config file \(path): File exists" }
    }

    /// Edits the file at `path` with `change` under its lock; returns the editor's warnings.
    @discardableResult
    package static func edit(_ path: String, _ change: (inout ConfigEditor) throws -> Void) throws -> [String] {
        let target = resolved(path)
        let lockPath = "\(target).lock"
        let lock: File
        do {
            lock = try SignalCleanup.deferringSignals {
                let file = try File.create(lockPath, mode: 0o666)
                SignalCleanup.removeFileOnSignal(lockPath)
                return file
            }
        } catch let error as SystemCallError where error.errno == .fileExists {
            throw LockedError(path: path)
        }
        do {
            let old: [UInt8]?
            do {
                old = try FileSystem.read(target)
            } catch let error as SystemCallError where error.errno == .noSuchFile {
                old = nil
            }
            var editor = ConfigEditor(old)
            try change(&editor)
            if !editor.text.isEmpty { try lock.write(editor.text[...]) }
            if old != nil, let mode = FileSystem.permissions(of: target) {
                try lock.setPermissions(mode)
            } else {
                try FileSystem.adjustSharedPermissions(lockPath)
            }
            try lock.close()
            try FileSystem.rename(lockPath, to: target)
            return editor.warnings
        } catch {
            try? lock.close()
            try? FileSystem.remove(lockPath)
            throw error
        }
    }

    /// The file a chain of symbolic links at `path` ends at (at most 5 links, as git's
    /// `resolve_symlink` follows).
    private static func resolved(_ path: String) -> String {
        var path = path
        for _ in 0..<5 {
            guard let target = FileSystem.symbolicLinkTarget(path) else { break }
            path = target.hasPrefix("/") ? target : "\(FileSystem.parentDirectory(of: path))/\(target)"
        }
        return path
    }
}
