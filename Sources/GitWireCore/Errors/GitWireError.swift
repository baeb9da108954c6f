/// An error from gitwire that says what kind of failure it is, so callers can switch on
/// ``kind`` without knowing every error type. Every error type of the library conforms.
///
/// ```swift
/// do { _ = try await remote.lsRemote() } catch let error as any GitWireError {
///     switch error.kind {
///     case .timedOut, .connect: retryLater()
///     case .authentication: askForCredentials()
///     case .notFound: forgetRepository()
///     default: report(error)
///     }
/// }
/// ```
public protocol GitWireError: Error, CustomStringConvertible {
    /// What kind of failure this is.
    var kind: GitWireErrorKind { get }
}

/// The kinds of failure a caller may want to handle differently. The same failure has the same
/// kind over every transport: a refused connection is ``connect`` over git://, ssh and HTTP
/// alike, a missing repository ``notFound`` whether git daemon, `git-upload-pack`, ssh or an
/// HTTP server said so.
///
/// A value with static members rather than an enum, so that later versions can add kinds
/// without breaking anyone's code: compare with `==` or `switch` with a `default:` case.
/// ``description`` is the kind's name (`connect`, `notFound`), as ``allCases`` lists them.
public struct GitWireErrorKind: Hashable, Sendable, CustomStringConvertible {
    /// The kind's name: the static member's own (`connect`, `timedOut`, `notFound`, ...).
    public let name: String

    private init(_ name: String) { self.name = name }

    /// The kind's name.
    public var description: String { name }

    /// No connection could be made: the host did not resolve, refused, or was unreachable (over
    /// ssh too: ssh's own `connect to host … Connection refused`); a TLS handshake or a host key
    /// that could not be verified.
    public static let connect = GitWireErrorKind("connect")
    /// A wait for the network or a child process took longer than the timeout.
    public static let timedOut = GitWireErrorKind("timedOut")
    /// The server broke the protocol or sent malformed data.
    public static let `protocol` = GitWireErrorKind("protocol")
    /// The server reported an error (`ERR`, side-band 3) or ended the exchange early, for a
    /// reason no other kind names.
    public static let remote = GitWireErrorKind("remote")
    /// Credentials were needed and none could be had, or the server refused them: HTTP 401 and
    /// 403, ssh's `Permission denied`.
    public static let authentication = GitWireErrorKind("authentication")
    /// The repository does not exist there (or the server will not say it does): HTTP 404,
    /// `does not appear to be a git repository`, git daemon's `access denied or repository not
    /// exported`, `git-upload-pack: not found` on an ssh server.
    public static let notFound = GitWireErrorKind("notFound")
    /// A pack or object was malformed or failed a check.
    public static let pack = GitWireErrorKind("pack")
    /// A system call failed (files, descriptors, processes).
    public static let system = GitWireErrorKind("system")
    /// The connection broke (reset, or closed under a write) in the middle of an exchange.
    public static let connectionLost = GitWireErrorKind("connectionLost")
    /// The caller cancelled the operation.
    public static let cancelled = GitWireErrorKind("cancelled")
    /// The caller's input was not usable: a bad URL, an unsupported option, a transport the
    /// configuration does not allow.
    public static let usage = GitWireErrorKind("usage")

    /// Every kind this version of gitwire knows.
    public static let allCases: [GitWireErrorKind] = [
        .connect, .timedOut, .protocol, .remote, .authentication, .notFound, .pack, .system, .connectionLost,
        .cancelled, .usage,
    ]
}
