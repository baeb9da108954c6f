import GitWireCore
import Glibc

/// A system call failed: which call and why.
public struct SystemCallError: GitWireError, Sendable {
    /// What kind of failure this is: ``GitWireErrorKind/system``.
    public var kind: GitWireErrorKind { .system }

    /// The call that failed, such as `"connect"`.
    public let call: String
    /// The reason it failed.
    public let errno: Errno

    /// Makes an error for `call` failing with `errno`.
    public init(_ call: String, _ errno: Errno) {
        self.call = call
        self.errno = errno
    }

    /// The text shown to users and in logs.
    public var description: String { "\(call): \(errno)" }
}
