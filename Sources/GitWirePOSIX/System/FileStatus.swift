import GitWireCore
import Glibc

/// What `stat` or `lstat` says about a path: the parts git's repository discovery, ownership
/// check and index need.
package struct FileStatus: Hashable, Sendable {
    /// The file type and permission bits (`st_mode`).
    package var mode: UInt32
    /// The owner (`st_uid`).
    package var userID: UInt32
    /// The group (`st_gid`).
    package var groupID: UInt32
    /// The device the file is on (`st_dev`).
    package var device: UInt64
    /// The inode (`st_ino`).
    package var inode: UInt64
    /// The size in bytes.
    package var size: Int64
    /// The last status change, seconds and nanoseconds.
    package var changed: (seconds: Int64, nanoseconds: Int64)
    /// The last modification, seconds and nanoseconds.
    package var modified: (seconds: Int64, nanoseconds: Int64)

    /// Whether it is a directory.
    package var isDirectory: Bool { mode & UInt32(S_IFMT) == UInt32(S_IFDIR) }
    /// Whether it is a regular file.
    package var isRegularFile: Bool { mode & UInt32(S_IFMT) == UInt32(S_IFREG) }
    /// Whether it is a symbolic link (only `lstat` says so).
    package var isSymbolicLink: Bool { mode & UInt32(S_IFMT) == UInt32(S_IFLNK) }

    init(_ info: stat) {
        mode = UInt32(info.st_mode)
        userID = UInt32(info.st_uid)
        groupID = UInt32(info.st_gid)
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        changed = (Int64(info.st_ctim.tv_sec), Int64(info.st_ctim.tv_nsec))
        modified = (Int64(info.st_mtim.tv_sec), Int64(info.st_mtim.tv_nsec))
    }

    package static func == (a: FileStatus, b: FileStatus) -> Bool {
        a.mode == b.mode && a.userID == b.userID && a.groupID == b.groupID && a.device == b.device
            && a.inode == b.inode && a.size == b.size && a.changed == b.changed && a.modified == b.modified
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(device)
        hasher.combine(inode)
        hasher.combine(size)
    }
}

extension FileSystem {
    /// What `stat` (or, with `followingLinks` false, `lstat`) says about `path`; nil when it
    /// fails (nothing there, no permission).
    package static func status(_ path: String, followingLinks: Bool = true) -> FileStatus? {
        var info = stat()
        let result = followingLinks ? stat(path, &info) : lstat(path, &info)
        return result == 0 ? FileStatus(info) : nil
    }

    /// The effective user id of this process (`geteuid`).
    package static var effectiveUserID: UInt32 { UInt32(geteuid()) }

    /// Whether this process may search (enter) the directory at `path`: `access(path, X_OK)`,
    /// as git's `is_git_directory` asks.
    package static func isSearchable(_ path: String) -> Bool { access(path, X_OK) == 0 }
}

extension FileSystem {
    /// Appends `bytes` to the file at `path` (created, mode 0666 less the umask, if missing) in
    /// one `write` with `O_APPEND`, as git appends reflog entries.
    package static func append(_ bytes: [UInt8], to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { throw SystemCallError("open \(path)", Errno.current) }
        defer { close(descriptor) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes {
                Glibc.write(descriptor, $0.baseAddress! + offset, bytes.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw SystemCallError("write \(path)", Errno.current)
            }
            offset += written
        }
    }
}
