/// An error from gitwire that says what kind of failure it is, so callers can switch on
/// ``kind`` without knowing every error type. Every error type of the library conforms.
///
/// ```swift
/// do { _ = try remote.lsRemote() } catch let error as any GitWireError {
///     switch error.kind {
///     case .timedOut, .connect: retryLater()
///     default: report(error)
///     }
/// }
/// ```
public protocol GitWireError: Error, CustomStringConvertible {
    /// What kind of failure this is.
    var kind: GitWireErrorKind { get }
}

/// The kinds of failure a caller may want to handle differently.
public enum GitWireErrorKind: Hashable, Sendable, CaseIterable {
    /// No connection could be made: the host did not resolve, refused, or was unreachable.
    case connect
    /// A wait for the network or a child process took longer than the timeout.
    case timedOut
    /// The server broke the protocol or sent malformed data.
    case `protocol`
    /// The server reported an error (`ERR`, side-band 3) or ended the exchange early.
    case remote
    /// A pack or object was malformed or failed a check.
    case pack
    /// A system call failed (files, descriptors, processes).
    case system
    /// The connection broke (reset, or closed under a write) in the middle of an exchange.
    case connectionLost
    /// The caller cancelled the operation.
    case cancelled
    /// The caller's input was not usable: a bad URL, an unsupported option.
    case usage
}
