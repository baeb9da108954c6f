import GitWireCore
import Glibc

/// A POSIX error number, with names for the ones gitwire handles by name.
public struct Errno: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The raw `errno` value.
    public let rawValue: CInt

    /// Wraps a raw `errno` value.
    public init(rawValue: CInt) { self.rawValue = rawValue }

    /// The calling thread's current `errno`.
    package static var current: Errno { Errno(rawValue: errno) }

    /// `EINTR`: a signal interrupted the call.
    public static let interrupted = Errno(rawValue: EINTR)
    /// `EAGAIN`: the call would block.
    public static let wouldBlock = Errno(rawValue: EAGAIN)
    /// `EINPROGRESS`: a non-blocking connect has started.
    public static let inProgress = Errno(rawValue: EINPROGRESS)
    /// `ECONNREFUSED`: nothing listens at the address.
    public static let connectionRefused = Errno(rawValue: ECONNREFUSED)
    /// `ECONNRESET`: the peer reset the connection.
    public static let connectionReset = Errno(rawValue: ECONNRESET)
    /// `EPIPE`: the peer closed its end.
    public static let brokenPipe = Errno(rawValue: EPIPE)
    /// `ETIMEDOUT`: the operation timed out.
    public static let timedOut = Errno(rawValue: ETIMEDOUT)
    /// `ECHILD`: no such child process (it was reaped already).
    public static let noChild = Errno(rawValue: ECHILD)
    /// `EEXIST`: the file exists.
    public static let fileExists = Errno(rawValue: EEXIST)
    /// `EBADF`: not an open descriptor.
    public static let badFileDescriptor = Errno(rawValue: EBADF)
    /// `ENOENT`: no such file or directory.
    public static let noSuchFile = Errno(rawValue: ENOENT)
    /// `ELOOP`: too many symbolic links.
    public static let tooManyLinks = Errno(rawValue: ELOOP)
    /// `EADDRINUSE`: the address is already bound.
    public static let addressInUse = Errno(rawValue: EADDRINUSE)

    /// The system's text for the error, as `strerror` gives it.
    public var description: String { String(cString: strerror(rawValue)) }
}
