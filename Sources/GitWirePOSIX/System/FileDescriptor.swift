import GitWireCore
import Glibc

/// An open file descriptor. A plain value: closing is explicit, and the owner decides when.
/// Package-only, so `import GitWire` brings no `FileDescriptor` to clash with swift-system's.
package struct FileDescriptor: RawRepresentable, Hashable, Sendable {
    /// The raw descriptor number.
    package let rawValue: CInt

    /// Wraps a raw descriptor number.
    package init(rawValue: CInt) { self.rawValue = rawValue }

    /// Standard input.
    package static let standardInput = FileDescriptor(rawValue: 0)
    /// Standard output.
    package static let standardOutput = FileDescriptor(rawValue: 1)
    /// Standard error.
    package static let standardError = FileDescriptor(rawValue: 2)

    /// Reads at most `maxCount` bytes; an empty array means end of file.
    package func read(maxCount: Int) throws -> IOResult<[UInt8]> {
        var outcome: IOResult<Int> = .wouldBlock
        var failure: SystemCallError?
        let bytes = [UInt8](unsafeUninitializedCapacity: maxCount) { buffer, count in
            do {
                outcome = try retryingNonBlocking("read") { Glibc.read(rawValue, buffer.baseAddress, maxCount) }
            } catch {
                failure = error as? SystemCallError
            }
            if case .done(let n) = outcome { count = n } else { count = 0 }
        }
        if let failure { throw failure }
        if case .done = outcome { return .done(bytes) }
        return .wouldBlock
    }

    /// Reads at most `maxCount` bytes at `offset` without moving the file position.
    package func read(at offset: Int64, maxCount: Int) throws -> [UInt8] {
        var failure: SystemCallError?
        let bytes = [UInt8](unsafeUninitializedCapacity: maxCount) { buffer, count in
            do {
                count = try retryingInterrupts("pread") { pread(rawValue, buffer.baseAddress, maxCount, off_t(offset)) }
            } catch {
                failure = error as? SystemCallError
                count = 0
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// Writes as many of `bytes` as the descriptor takes now. Sockets are written with `MSG_NOSIGNAL`.
    package func write(_ bytes: ArraySlice<UInt8>, isSocket: Bool) throws -> IOResult<Int> {
        if bytes.isEmpty { return .done(0) }
        return try bytes.withUnsafeBytes { raw in
            if isSocket {
                return try retryingNonBlocking("send") {
                    send(rawValue, raw.baseAddress, raw.count, CInt(MSG_NOSIGNAL))
                }
            }
            return try retryingNonBlocking("write") { Glibc.write(rawValue, raw.baseAddress, raw.count) }
        }
    }

    /// Closes the descriptor. `EINTR` is not retried: on Linux the descriptor is gone either way.
    package func close() throws {
        if Glibc.close(rawValue) == -1 {
            let error = Errno.current
            if error != .interrupted { throw SystemCallError("close", error) }
        }
    }

    /// Makes reads and writes return at once instead of blocking.
    package func setNonBlocking() throws {
        let flags = try retryingInterrupts("fcntl") { fcntl(rawValue, F_GETFL) }
        if flags & O_NONBLOCK == 0 {
            _ = try retryingInterrupts("fcntl") { fcntl(rawValue, F_SETFL, flags | O_NONBLOCK) }
        }
    }

    /// Whether the descriptor is a socket.
    package var isSocket: Bool {
        var info = stat()
        guard fstat(rawValue, &info) == 0 else { return false }
        return info.st_mode & S_IFMT == S_IFSOCK
    }

    /// Whether the descriptor is a terminal.
    package var isTerminal: Bool { isatty(rawValue) == 1 }
}
