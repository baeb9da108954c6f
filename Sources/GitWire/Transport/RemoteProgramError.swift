/// A remote reached through a program (ssh, `git-upload-pack`) failed, and the program said why
/// on its standard error: ssh's `Permission denied (publickey).`, `git-upload-pack`'s
/// `fatal: '/srv/x.git' does not appear to be a git repository`.
///
/// The program's last lines are kept (at most 20, each cut at 1 KiB) so that a program listing
/// many remotes can tell each remote's own reason (`ls-remote --batch --json` shows it as the
/// error's message); ``kind`` is what those lines say (``GitWireErrorKind/authentication``,
/// ``GitWireErrorKind/notFound``, ``GitWireErrorKind/connect``, ...), else the kind of what the
/// exchange saw (the connection ending early, most often).
public struct RemoteProgramError: GitWireError, Sendable {
    /// What the program wrote on its standard error, its last lines, as written (the
    /// ``description`` masks control characters).
    public let standardError: [String]
    /// What the exchange saw: the connection ended (``UnexpectedEndError``), broke, ...
    public let underlying: AnyGitWireError

    /// An error explained by `standardError`.
    public init(standardError: [String], underlying: any Error) {
        self.standardError = standardError
        self.underlying = AnyGitWireError(underlying)
    }

    /// What the program's lines say, else the underlying error's kind.
    public var kind: GitWireErrorKind { FailureText.kind(of: standardError) ?? underlying.kind }

    /// The program's lines (control characters masked), then the underlying error's message.
    public var description: String {
        (standardError.map { maskedForTerminal($0) } + [underlying.description]).joined(separator: "\n")
    }
}
