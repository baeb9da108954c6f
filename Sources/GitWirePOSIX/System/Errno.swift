import GitWireCore
import Glibc

/// A POSIX error number, with names for the ones gitwire handles by name. Package-only, so
/// `import GitWire` brings no `Errno` to clash with swift-system's.
package struct Errno: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The raw `errno` value.
    package let rawValue: CInt

    /// Wraps a raw `errno` value.
    package init(rawValue: CInt) { self.rawValue = rawValue }

    /// The calling thread's current `errno`.
    package static var current: Errno { Errno(rawValue: errno) }

    /// `EINTR`: a signal interrupted the call.
    package static let interrupted = Errno(rawValue: EINTR)
    /// `EAGAIN`: the call would block.
    package static let wouldBlock = Errno(rawValue: EAGAIN)
    /// `EINPROGRESS`: a non-blocking connect has started.
    package static let inProgress = Errno(rawValue: EINPROGRESS)
    /// `ECONNREFUSED`: nothing listens at the address.
    package static let connectionRefused = Errno(rawValue: ECONNREFUSED)
    /// `ECONNRESET`: the peer reset the connection.
    package static let connectionReset = Errno(rawValue: ECONNRESET)
    /// `EPIPE`: the peer closed its end.
    package static let brokenPipe = Errno(rawValue: EPIPE)
    /// `ETIMEDOUT`: the operation timed out.
    package static let timedOut = Errno(rawValue: ETIMEDOUT)
    /// `ECHILD`: no such child process (it was reaped already).
    package static let noChild = Errno(rawValue: ECHILD)
    /// `EEXIST`: the file exists.
    package static let fileExists = Errno(rawValue: EEXIST)
    /// `EBADF`: not an open descriptor.
    package static let badFileDescriptor = Errno(rawValue: EBADF)
    /// `ENOENT`: no such file or directory.
    package static let noSuchFile = Errno(rawValue: ENOENT)
    /// `ELOOP`: too many symbolic links.
    package static let tooManyLinks = Errno(rawValue: ELOOP)
    /// `EADDRINUSE`: the address is already bound.
    package static let addressInUse = Errno(rawValue: EADDRINUSE)

    /// The system's text for the error, as `strerror` gives it.
    package var description: String { String(cString: strerror(rawValue)) }
}
