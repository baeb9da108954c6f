import CGitWire
import GitWireCore
import Glibc

/// A regular file opened for reading or writing, closed when the value goes away.
package final class File {
    /// The path the file was opened at.
    package let path: String
    package let descriptor: FileDescriptor
    private var isClosed = false

    private init(path: String, descriptor: FileDescriptor) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit { if !isClosed { try? descriptor.close() } }

    /// Opens an existing file for reading.
    package static func openForReading(_ path: String) throws -> File {
        let fd = try retryingInterrupts("open \(path)") { open(path, O_RDONLY | O_CLOEXEC) }
        return File(path: path, descriptor: FileDescriptor(rawValue: fd))
    }

    /// Creates a new file for reading and writing; fails if it exists.
    package static func create(_ path: String, mode: mode_t = 0o644) throws -> File {
        let fd = try retryingInterrupts("open \(path)") {
            open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        }
        return File(path: path, descriptor: FileDescriptor(rawValue: fd))
    }

    /// Creates a new, uniquely named file in `directory` whose name starts with `prefix`.
    package static func createTemporary(in directory: String, prefix: String) throws -> File {
        var template = Array("\(directory)/\(prefix)XXXXXX".utf8CString)
        // Removed if a signal kills the process before it is renamed into place or removed; the
        // signals wait until it is registered.
        return try SignalCleanup.deferringSignals {
            let fd = try template.withUnsafeMutableBufferPointer { buffer in
                try retryingInterrupts("mkostemp \(directory)") { cgw_mkstemp_cloexec(buffer.baseAddress!) }
            }
            let path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
            SignalCleanup.removeFileOnSignal(path)
            return File(path: path, descriptor: FileDescriptor(rawValue: fd))
        }
    }

    /// Standard input, for reading (not closed by this value).
    package static func standardInput() -> File { inherited(.standardInput, name: "<stdin>") }

    private static func inherited(_ descriptor: FileDescriptor, name: String) -> File {
        let file = File(path: name, descriptor: descriptor)
        file.isClosed = true
        return file
    }

    /// Reads up to `count` bytes at the current position; empty at end of file.
    package func read(upTo count: Int) throws -> [UInt8] {
        while true {
            switch try descriptor.read(maxCount: count) {
            case .done(let bytes): return bytes
            case .wouldBlock: _ = try Poll.wait(descriptor, forWriting: false, timeout: nil)
            }
        }
    }

    /// Reads up to `buffer.count` bytes at the current position into `buffer`; returns how many,
    /// 0 at end of file.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            let outcome = try retryingNonBlocking("read \(path)") {
                Glibc.read(descriptor.rawValue, buffer.baseAddress, buffer.count)
            }
            switch outcome {
            case .done(let count): return count
            case .wouldBlock: _ = try Poll.wait(descriptor, forWriting: false, timeout: nil)
            }
        }
    }

    /// The file's size if it is a regular file; nil for pipes, sockets and terminals.
    package func regularFileSize() throws -> Int64? {
        var info = stat()
        _ = try retryingInterrupts("fstat \(path)") { fstat(descriptor.rawValue, &info) }
        return info.st_mode & S_IFMT == S_IFREG ? Int64(info.st_size) : nil
    }

    /// Reads up to `count` bytes at `offset`, looping over short reads; shorter only at end of file.
    package func read(at offset: Int64, count: Int) throws -> [UInt8] {
        var result = try descriptor.read(at: offset, maxCount: count)
        while result.count < count {
            let more = try descriptor.read(at: offset + Int64(result.count), maxCount: count - result.count)
            if more.isEmpty { break }
            result += more
        }
        return result
    }

    /// Writes all of `bytes` at the current position.
    package func write(_ bytes: ArraySlice<UInt8>) throws {
        var rest = bytes
        while !rest.isEmpty {
            switch try descriptor.write(rest, isSocket: false) {
            case .done(let n): rest = rest.dropFirst(n)
            case .wouldBlock: _ = try Poll.wait(descriptor, forWriting: true, timeout: nil)
            }
        }
    }

    /// Writes all of `bytes` at `offset` without moving the position.
    package func write(_ bytes: ArraySlice<UInt8>, at offset: Int64) throws {
        var rest = bytes
        var position = offset
        while !rest.isEmpty {
            let written = try rest.withUnsafeBytes { raw in
                try retryingInterrupts("pwrite \(path)") {
                    pwrite(descriptor.rawValue, raw.baseAddress, raw.count, off_t(position))
                }
            }
            rest = rest.dropFirst(written)
            position += Int64(written)
        }
    }

    /// The file's size in bytes.
    package func size() throws -> Int64 {
        var info = stat()
        _ = try retryingInterrupts("fstat \(path)") { fstat(descriptor.rawValue, &info) }
        return Int64(info.st_size)
    }

    /// Cuts the file to `size` bytes.
    package func truncate(to size: Int64) throws {
        _ = try retryingInterrupts("ftruncate \(path)") { ftruncate(descriptor.rawValue, off_t(size)) }
    }

    /// Flushes the file's data to the disk.
    package func sync() throws {
        _ = try retryingInterrupts("fsync \(path)") { fsync(descriptor.rawValue) }
    }

    /// Closes the file; later calls do nothing.
    package func close() throws {
        if isClosed { return }
        isClosed = true
        try descriptor.close()
    }
}

/// File-system calls by path.
package enum FileSystem {
    /// The directory that holds `path`, as `dirname` names it for the paths gitwire makes: the
    /// part before the last `/` (`/` itself for a name at the root), `.` for a path without one.
    package static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Renames `from` to `to`, replacing `to`.
    package static func rename(_ from: String, to: String) throws {
        _ = try retryingInterrupts("rename \(from) to \(to)") { Glibc.rename(from, to) }
        SignalCleanup.forget(from)
    }

    /// Writes `bytes` to `path` through a temporary file in the same directory (named with
    /// `temporaryPrefix`) renamed into place, so a reader sees the old file or the whole new one,
    /// never half of it; on failure the temporary file is removed and `path` is untouched. The
    /// file keeps the permission bits of the one it replaces (as git's rewrite of `config` or
    /// `FETCH_HEAD` keeps them); a new one gets `permissions` less the umask, opened up as
    /// `core.sharedRepository` says unless `shared` is false (git's `FETCH_HEAD` is not).
    package static func writeAtomically(
        _ bytes: ArraySlice<UInt8>, to path: String, permissions: UInt32, temporaryPrefix: String,
        shared: Bool = true
    ) throws {
        try writeAtomically(to: path, permissions: permissions, temporaryPrefix: temporaryPrefix, shared: shared) {
            write in
            try write(bytes)
        }
    }

    /// ``writeAtomically(_:to:permissions:temporaryPrefix:shared:)`` with the bytes handed over
    /// in pieces: `produce` calls its argument with each piece in order, so a large file is never
    /// held whole.
    package static func writeAtomically(
        to path: String, permissions: UInt32, temporaryPrefix: String, shared: Bool = true,
        _ produce: (_ write: (ArraySlice<UInt8>) throws -> Void) throws -> Void
    ) throws {
        let file = try File.createTemporary(in: parentDirectory(of: path), prefix: temporaryPrefix)
        do {
            try produce { try file.write($0) }
            if let existing = status(path), existing.isRegularFile {
                try file.setPermissions(existing.mode & 0o7777)
            } else if shared {
                try file.setCreationPermissions(permissions)
            } else {
                try file.setPermissions(permissions & ~creationMask)
            }
            try file.close()
            try rename(file.path, to: path)
        } catch {
            try? remove(file.path)
            throw error
        }
    }

    /// Removes a file; a missing file is not an error.
    package static func remove(_ path: String) throws {
        if unlink(path) == -1 && Errno.current != .noSuchFile {
            throw SystemCallError("unlink \(path)", Errno.current)
        }
        SignalCleanup.forget(path)
    }

    /// The permission bits (`st_mode & 07777`) of what `path` names (links followed), or nil
    /// if it cannot be read.
    package static func permissions(of path: String) -> UInt32? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return UInt32(info.st_mode & 0o7777)
    }

    /// Whether `path` may be executed by this process (`access(X_OK)`).
    package static func isExecutable(_ path: String) -> Bool { access(path, X_OK) == 0 }

    /// Whether something exists at `path`.
    package static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// Whether `path` itself is a symbolic link (not followed).
    package static func isSymbolicLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
    }

    /// What the symbolic link at `path` holds, as written (nil when it is not a link).
    package static func symbolicLinkTarget(_ path: String) -> String? {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = buffer.withUnsafeMutableBufferPointer { raw in
            raw.baseAddress!.withMemoryRebound(to: CChar.self, capacity: raw.count) { readlink(path, $0, raw.count) }
        }
        guard count >= 0, count < buffer.count else { return nil }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    /// Makes a symbolic link at `path` that holds `target` as written; fails if `path` exists.
    package static func makeSymbolicLink(_ target: String, at path: String) throws {
        guard symlink(target, path) == 0 else { throw SystemCallError("symlink \(path)", Errno.current) }
    }

    /// Whether `path` itself is a regular file (a link is not followed).
    package static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    /// Whether `path` is a directory.
    package static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// Creates a directory; one that exists already is not an error. A new one is opened up as
    /// `core.sharedRepository` says (``adjustSharedPermissions(_:)``).
    package static func makeDirectory(_ path: String, mode: mode_t = 0o777) throws {
        if mkdir(path, mode) == -1 {
            if Errno.current.rawValue != EEXIST { throw SystemCallError("mkdir \(path)", Errno.current) }
        } else {
            try adjustSharedPermissions(path)
        }
    }

    /// Creates a directory and any missing parents (`mkdir -p`).
    package static func makeDirectories(_ path: String, mode: mode_t = 0o777) throws {
        if isDirectory(path) { return }
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            try makeDirectories(parentDirectory(of: path), mode: mode)
        }
        try makeDirectory(path, mode: mode)
    }

    /// The names in a directory, without `.` and `..`.
    package static func contents(ofDirectory path: String) throws -> [String] {
        guard let directory = opendir(path) else { throw SystemCallError("opendir \(path)", Errno.current) }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Removes `path` and, if it is a directory, everything below it (links are removed, never
    /// followed). A missing path is not an error.
    package static func removeTree(_ path: String) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if Errno.current == .noSuchFile { return }
            throw SystemCallError("lstat \(path)", Errno.current)
        }
        if info.st_mode & S_IFMT == S_IFDIR {
            for name in try contents(ofDirectory: path) { try removeTree("\(path)/\(name)") }
            if rmdir(path) == -1 { throw SystemCallError("rmdir \(path)", Errno.current) }
        } else {
            try remove(path)
        }
    }

    /// Removes an empty directory; one that is missing or not empty is left as it is.
    package static func removeDirectoryIfEmpty(_ path: String) {
        _ = rmdir(path)
    }

    /// The current working directory.
    package static func currentDirectory() throws -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { throw SystemCallError("getcwd", Errno.current) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Changes the process's current directory to `path`.
    package static func changeDirectory(_ path: String) throws {
        guard chdir(path) == 0 else { throw SystemCallError("chdir \(path)", Errno.current) }
    }

    /// Reads a whole file.
    package static func read(_ path: String) throws -> [UInt8] {
        let file = try File.openForReading(path)
        return try file.read(at: 0, count: Int(try file.size()))
    }
}
