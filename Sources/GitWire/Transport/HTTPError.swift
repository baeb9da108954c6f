/// A smart HTTP server answered with something other than what git's protocol needs: a status
/// that is not 200, a dumb server, credentials refused. The messages are git's, with the
/// repository URL as git shows it (credentials removed, a trailing slash).
public struct HTTPError: GitWireError, Sendable {
    /// What the server did.
    public enum Reason: Hashable, Sendable {
        /// 404 on the discovery request: `repository '<url>' not found`.
        case repositoryNotFound
        /// 401 with credentials, or after the credential helper's: `Authentication failed for '<url>'`.
        case authenticationFailed
        /// No credentials could be had (`GIT_TERMINAL_PROMPT=0`, no helper, no git): the reason.
        case credentialsUnavailable(String)
        /// Any other status that is not 200: `unable to access '<url>': The requested URL returned error: N`.
        case status(Int)
        /// The server answered the discovery request without git's smart content type.
        case dumbServer
        /// A response to a request had the wrong content type.
        case unexpectedContentType(String?)
        /// The server redirected the discovery request to a URL that does not end the way it was
        /// asked, or that is not `http(s)://` (the target, without user information).
        case badRedirect(String)
        /// The transfer failed below HTTP (connect, TLS, timeout, broken connection).
        case transfer(HTTPTransferError)
    }

    /// What the server did.
    public let reason: Reason
    /// The repository URL as shown in messages (without user information).
    public let url: String
    /// The text the server sent with an error status, if it was `text/plain`; git shows its lines
    /// as `remote: …` before the error. Control characters are replaced.
    public let serverMessage: String?

    /// Makes an error about the repository at `url`. URLs are kept (and shown) without user
    /// information: an error never holds a password.
    public init(_ reason: Reason, url: String, serverMessage: String? = nil) {
        if case .badRedirect(let target) = reason {
            self.reason = .badRedirect(RemoteURL.withoutCredentials(target))
        } else {
            self.reason = reason
        }
        self.url = RemoteURL.withoutCredentials(url)
        self.serverMessage = serverMessage
    }

    /// ``GitWireErrorKind/notFound`` for 404, ``GitWireErrorKind/authentication`` for 401, 403
    /// and credentials that could not be had, ``GitWireErrorKind/remote`` for the server's other
    /// refusals, ``GitWireErrorKind/protocol`` for answers git's protocol does not allow, the
    /// transfer error's kind otherwise.
    public var kind: GitWireErrorKind {
        switch reason {
        case .repositoryNotFound, .status(404): .notFound
        case .authenticationFailed, .credentialsUnavailable, .status(401), .status(403): .authentication
        case .status: .remote
        case .dumbServer, .unexpectedContentType, .badRedirect: .protocol
        case .transfer(let error): error.kind
        }
    }

    /// git's message.
    public var description: String {
        switch reason {
        case .repositoryNotFound: "repository '\(url)' not found"
        case .authenticationFailed: "Authentication failed for '\(url)'"
        case .credentialsUnavailable(let reason): reason
        case .status(let code): "unable to access '\(url)': The requested URL returned error: \(code)"
        case .dumbServer:
            "\(url) is served by a dumb HTTP server (no git content type); gitwire speaks only smart HTTP"
        case .unexpectedContentType(let type):
            "unable to access '\(url)': the server answered with content type '\(type ?? "")', not git's"
        case .badRedirect(let target):
            "unable to update url base from redirection: asked for \(url), redirect: \(target)"
        case .transfer(let error): "unable to access '\(url)': \(error.message)"
        }
    }
}
