/// How the HTTP transport makes its requests. ``fromEnvironment()`` reads git's variables.
public struct HTTPOptions: Sendable {
    /// The `User-Agent` header (`GIT_HTTP_USER_AGENT` when set).
    public var userAgent: String
    /// How servers are verified (`GIT_SSL_CAINFO`, `GIT_SSL_CAPATH`, `GIT_SSL_NO_VERIFY`).
    public var tls: HTTPTLSOptions
    /// Whether `git credential fill` is asked for credentials on a 401, and told afterwards
    /// whether they worked. The URL's own `user:password` are used first either way.
    public var usesCredentialHelper: Bool
    /// Bodies larger than this are sent gzip-compressed (`Content-Encoding: gzip`), as git does.
    public var gzipThreshold: Int
    /// `http.postBuffer`: a push's request body that fits in this many bytes, less room for one
    /// more packet (65,520 bytes, as git keeps), goes whole with `Content-Length`; a larger one
    /// goes with `Transfer-Encoding: chunked` as the pack is made, after git's probe request (a
    /// `POST` of a flush packet) has settled authentication. 1 MiB by default, never below
    /// 65,520 (git raises smaller values to that). Requests of a fetch are small and go whole.
    public var postBuffer: Int = 1 << 20
    /// Hears warnings git prints on stderr (`redirecting to <url>`); called on the loop's thread.
    public var warning: (@Sendable (String) -> Void)?
    /// Hears each request body git's remote helper announces at verbosity 2 (`git push -v`):
    /// `POST git-receive-pack (<n> bytes)`, `(chunked)`, `(gzip <n> to <m> bytes)`; called on the
    /// loop's thread. The probe request is not announced, as git does not announce it.
    package var postAnnouncement: (@Sendable (String) -> Void)?
    /// Header lines sent with every request to the repository's origin (`http.extraHeader`, how
    /// CI systems authenticate): secrets, never shown, traced or recorded, and never sent to
    /// another origin (a redirect elsewhere leaves them behind, as it leaves credentials).
    public var extraHeaders: [Secret] = []
    /// The proxy (`http.proxy`, `remote.<name>.proxy`); nil: libcurl's environment variables
    /// (`http_proxy`, `https_proxy`, `all_proxy`, `no_proxy`).
    public var proxy: HTTPProxy?
    /// The HTTP version to ask for (`http.version`); nil: libcurl's choice (HTTP/2 over TLS
    /// where the server offers it).
    public var httpVersion: HTTPVersion?
    /// Which redirects are followed (`http.followRedirects`).
    public var followRedirects: HTTPRedirects = .initial
    /// Abandon a transfer that stays this slow this long (`http.lowSpeedLimit`,
    /// `http.lowSpeedTime`, `GIT_HTTP_LOW_SPEED_LIMIT`, `GIT_HTTP_LOW_SPEED_TIME`).
    public var lowSpeed: HTTPLowSpeedLimit?
    /// Variables `git credential` runs with, besides this process's environment: the
    /// configuration's command-line entries (`GIT_CONFIG_PARAMETERS`) and the repository it was
    /// read from (`GIT_DIR`), so that `credential.*` settings reach the helpers as they reach
    /// git's.
    public var credentialEnvironment: [String: String?] = [:]
    /// Warnings about the configuration (git prints them each time it starts HTTP), given to
    /// ``warning`` when a session starts.
    package var configurationWarnings: [String] = []

    /// The default `User-Agent`: `git/2.0 (gitwire/<version>)`, so servers that look for git's
    /// agent to speak smart HTTP recognise it.
    public static let defaultUserAgent = "git/2.0 (\(GitWireInfo.agent))"

    /// Makes options.
    public init(
        userAgent: String = HTTPOptions.defaultUserAgent, tls: HTTPTLSOptions = HTTPTLSOptions(),
        usesCredentialHelper: Bool = true, gzipThreshold: Int = 1024, warning: (@Sendable (String) -> Void)? = nil
    ) {
        self.userAgent = userAgent
        self.tls = tls
        self.usesCredentialHelper = usesCredentialHelper
        self.gzipThreshold = gzipThreshold
        self.warning = warning
    }

    /// Options from git's environment variables: `GIT_HTTP_USER_AGENT` (else `GIT_USER_AGENT`), `GIT_SSL_CAINFO`,
    /// `GIT_SSL_CAPATH`, `GIT_SSL_NO_VERIFY` (any value turns verification off, as in git).
    /// Proxies come from `http_proxy`, `https_proxy`, `all_proxy` and `no_proxy`, which libcurl reads.
    public static func fromEnvironment() -> HTTPOptions {
        var options = HTTPOptions()
        if let agent = Environment.value("GIT_USER_AGENT") { options.userAgent = agent }
        if let agent = Environment.value("GIT_HTTP_USER_AGENT"), !agent.isEmpty { options.userAgent = agent }
        options.tls.caInfo = Environment.value("GIT_SSL_CAINFO").flatMap { $0.isEmpty ? nil : $0 }
        options.tls.caPath = Environment.value("GIT_SSL_CAPATH").flatMap { $0.isEmpty ? nil : $0 }
        if Environment.value("GIT_SSL_NO_VERIFY") != nil { options.tls.verify = false }
        return options
    }
}

/// Which redirects the HTTP transport follows (`http.followRedirects`): git's three settings.
public enum HTTPRedirects: Hashable, Sendable {
    /// Those of the first request of a session (the discovery `GET`), which also move the
    /// repository for the requests after it. git's default.
    case initial
    /// Every request's, the `POST`s' too (each `POST` is sent again where it is redirected; the
    /// repository moves only with the first request's).
    case always
    /// None: a redirect is an error.
    case never
}
