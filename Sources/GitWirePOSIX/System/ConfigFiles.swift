import GitWireCore
import Glibc

/// The system calls git's configuration loading needs: whether a file can be read (git's
/// `access_or_die`), reading it to its end, resolving links (`realpath`), users' home
/// directories (`getpwnam`), the current directory as git names it, and the environment.
package enum ConfigFiles {
    /// What `access(path, R_OK)` says.
    package enum Access: Equatable {
        /// The file can be read.
        case readable
        /// Nothing is there (`ENOENT`, `ENOTDIR`): git skips such files silently.
        case missing
        /// Permission denied (`EACCES`).
        case denied(String)
        /// Another failure, with `strerror`'s text.
        case failed(String)
    }

    /// Whether `path` can be read.
    package static func access(_ path: String) -> Access {
        if Glibc.access(path, R_OK) == 0 { return .readable }
        let error = Errno.current
        switch error.rawValue {
        case ENOENT, ENOTDIR: return .missing
        case EACCES: return .denied(error.description)
        default: return .failed(error.description)
        }
    }

    /// A file could not be opened or read; `reason` is `strerror`'s text.
    package struct ReadError: Error {
        package let reason: String
        package let missing: Bool
    }

    /// The whole of the file at `path`, read to its end (so pipes and `/dev/stdin` work), at most
    /// `limit` bytes. A directory is refused with `EISDIR`, as git's `fopen` refuses it.
    package static func read(_ path: String, limit: Int = Int(Int32.max) + 1) throws(ReadError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let error = Errno.current
            throw ReadError(reason: error.description, missing: error.rawValue == ENOENT || error.rawValue == ENOTDIR)
        }
        defer { close(fd) }
        var info = stat()
        if fstat(fd, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR {
            throw ReadError(reason: Errno(rawValue: EISDIR).description, missing: false)
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while bytes.count < limit {
            let count = chunk.withUnsafeMutableBytes {
                Glibc.read(fd, $0.baseAddress, min($0.count, limit - bytes.count))
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw ReadError(reason: Errno.current.description, missing: false)
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        return bytes
    }

    /// `path` with every link and `.`/`..` resolved (`realpath`), or nil if it cannot be.
    package static func realPath(_ path: String) -> String? {
        guard let resolved = Glibc.realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The home directory of `user` from the user database, or nil if there is no such user.
    package static func homeDirectory(ofUser user: String) -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16384)
        let status = getpwnam_r(user, &entry, &buffer, buffer.count, &result)
        guard status == 0, result != nil, let directory = entry.pw_dir else { return nil }
        return String(cString: directory)
    }

    /// The current directory as git's `strbuf_add_absolute_path` names it: `$PWD` when it names
    /// this same directory (so a path through a link stays as the user typed it), `getcwd`
    /// otherwise.
    package static func currentDirectory(pwd: String?) -> String? {
        guard let cwd = try? FileSystem.currentDirectory() else { return nil }
        var here = stat()
        var there = stat()
        if let pwd, pwd != cwd, stat(cwd, &here) == 0, here.st_dev != 0 || here.st_ino != 0, stat(pwd, &there) == 0,
            here.st_dev == there.st_dev, here.st_ino == there.st_ino
        {
            return pwd
        }
        return cwd
    }

    /// Whether `path` is a directory (links followed).
    package static func isDirectory(_ path: String) -> Bool { FileSystem.isDirectory(path) }

    /// Whether something is at `path` (links followed).
    package static func exists(_ path: String) -> Bool { FileSystem.exists(path) }
}

extension Environment {
    /// The whole process environment (a name given twice keeps its first value, as `getenv`
    /// finds it).
    package static func all() -> [String: String] {
        var values: [String: String] = [:]
        var cursor = environ
        while let entry = cursor.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                let name = String(text[..<equals])
                if values[name] == nil { values[name] = String(text[text.index(after: equals)...]) }
            }
            cursor += 1
        }
        return values
    }
}

extension ConfigFiles {
    /// Changes the process's current directory to `path`; nil on success, `strerror`'s text on
    /// failure.
    package static func changeDirectory(_ path: String) -> String? {
        chdir(path) == 0 ? nil : Errno.current.description
    }
}
