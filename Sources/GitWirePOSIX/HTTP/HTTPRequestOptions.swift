import CGitWire
import GitWireCore

/// The proxy HTTP requests go through, as git gives it to libcurl from `http.proxy` (or
/// `remote.<name>.proxy`): an address without scheme or credentials, the kind of proxy the
/// value's scheme names, and the credentials kept apart.
public struct HTTPProxy: Hashable, Sendable, CustomStringConvertible {
    /// How the proxy is spoken to.
    public enum Kind: Hashable, Sendable {
        /// An HTTP proxy (`http://`, or no scheme).
        case http
        /// An HTTP proxy reached over TLS (`https://`).
        case https
        /// SOCKS4 (`socks://`, `socks4://`).
        case socks4
        /// SOCKS4a (`socks4a://`).
        case socks4a
        /// SOCKS5, names resolved here (`socks5://`).
        case socks5
        /// SOCKS5, names resolved by the proxy (`socks5h://`).
        case socks5Hostname
    }

    /// How the proxy is told who the user is: `http.proxyAuthMethod` (`anyauth`, `basic`,
    /// `digest`, `negotiate`, `ntlm`).
    public enum AuthMethod: String, Hashable, Sendable {
        /// Whatever the proxy asks for (git's default).
        case anyauth
        /// Basic.
        case basic
        /// Digest.
        case digest
        /// Negotiate (SPNEGO).
        case negotiate
        /// NTLM.
        case ntlm
    }

    /// `host[:port]`; empty: no proxy at all, not even one from the environment.
    public var address: String
    /// The kind of proxy.
    public var kind: Kind
    /// The user name for the proxy, if the value named one.
    public var username: String?
    /// The password for the proxy, if the value held one: never shown.
    public var password: Secret?
    /// Hosts reached without the proxy (`NO_PROXY`/`no_proxy`, as git passes them on).
    public var noProxy: String?
    /// How credentials are offered (any method the proxy names when nil, as git).
    public var authMethod: AuthMethod?

    /// Makes a proxy setting.
    public init(
        address: String, kind: Kind = .http, username: String? = nil, password: Secret? = nil,
        noProxy: String? = nil, authMethod: AuthMethod? = nil
    ) {
        self.address = address
        self.kind = kind
        self.username = username
        self.password = password
        self.noProxy = noProxy
        self.authMethod = authMethod
    }

    /// No proxy at all, whatever the environment says (`http.proxy` set to the empty string).
    public static let none = HTTPProxy(address: "")

    /// The address and the user, never the password.
    public var description: String { (username.map { "\($0)@" } ?? "") + address }
}

/// Which HTTP version requests ask for (`http.version`).
public enum HTTPVersion: String, Hashable, Sendable {
    /// `HTTP/1.1`.
    case http11 = "HTTP/1.1"
    /// `HTTP/2` (over TLS through ALPN; libcurl falls back to HTTP/1.1 where the server has no HTTP/2).
    case http2 = "HTTP/2"
}

/// A transfer slower than `bytesPerSecond` for `seconds` in a row is abandoned
/// (`http.lowSpeedLimit` and `http.lowSpeedTime`, both above 0).
public struct HTTPLowSpeedLimit: Hashable, Sendable {
    /// The least average speed, in bytes per second.
    public var bytesPerSecond: Int
    /// For how long a transfer may stay below it.
    public var seconds: Int

    /// Makes a limit.
    public init(bytesPerSecond: Int, seconds: Int) {
        self.bytesPerSecond = bytesPerSecond
        self.seconds = seconds
    }
}

extension HTTPProxy.Kind {
    var curlValue: Int {
        switch self {
        case .http: Int(CGW_CURLPROXY_HTTP)
        case .https: Int(CGW_CURLPROXY_HTTPS)
        case .socks4: Int(CGW_CURLPROXY_SOCKS4)
        case .socks4a: Int(CGW_CURLPROXY_SOCKS4A)
        case .socks5: Int(CGW_CURLPROXY_SOCKS5)
        case .socks5Hostname: Int(CGW_CURLPROXY_SOCKS5_HOSTNAME)
        }
    }
}

extension HTTPProxy.AuthMethod {
    var curlValue: Int {
        switch self {
        case .anyauth: cgw_curl_auth_any()
        case .basic: Int(CGW_CURLAUTH_BASIC)
        case .digest: Int(CGW_CURLAUTH_DIGEST)
        case .negotiate: Int(CGW_CURLAUTH_NEGOTIATE)
        case .ntlm: Int(CGW_CURLAUTH_NTLM)
        }
    }
}
