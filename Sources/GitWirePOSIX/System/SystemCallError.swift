import GitWireCore
import Glibc

/// A system call failed: which call and why.
public struct SystemCallError: GitWireError, Sendable {
    /// What kind of failure this is: ``GitWireErrorKind/system``.
    public var kind: GitWireErrorKind { .system }

    /// The call that failed, such as `"connect"`.
    public let call: String
    /// The reason it failed.
    package let errno: Errno
    /// The reason it failed, as the C `errno` value (`ECONNRESET`, …).
    public var code: CInt { errno.rawValue }

    /// Makes an error for `call` failing with `errno`.
    package init(_ call: String, _ errno: Errno) {
        self.call = call
        self.errno = errno
    }

    /// The text shown to users and in logs.
    public var description: String { "\(call): \(errno)" }
}
