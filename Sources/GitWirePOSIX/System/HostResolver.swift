import GitWireCore
import Glibc

/// Looks host names up for TCP connects. A run loop never calls ``resolve(host:port:)`` on its
/// own thread: a lookup can block for seconds, so it runs on a small pool of resolver threads and
/// its answer is posted back to the loop, which meanwhile serves its other connections and timers
/// (a connect timeout fires during a slow lookup).
public protocol HostResolver: Sendable {
    /// The addresses of `host`, if they can be had at once without blocking (a numeric address);
    /// nil to have ``resolve(host:port:)`` called off the loop.
    func immediateAddresses(host: String, port: Int) -> [SocketAddress]?

    /// Looks `host` up, blocking; throws ``ResolveError`` when it cannot be resolved.
    func resolve(host: String, port: Int) throws -> [SocketAddress]
}

extension HostResolver {
    /// No immediate answers: every lookup goes to the resolver threads.
    public func immediateAddresses(host: String, port: Int) -> [SocketAddress]? { nil }
}

/// The system's resolver (`getaddrinfo`: `/etc/hosts`, DNS, as configured). Numeric addresses
/// (`127.0.0.1`, `::1`) are answered at once, without a thread.
public struct SystemResolver: HostResolver {
    /// The system's resolver.
    public init() {}

    /// The address itself, for a numeric IPv4 or IPv6 address; nil for names.
    public func immediateAddresses(host: String, port: Int) -> [SocketAddress]? {
        try? SocketAddress.resolve(host: host, port: port, numericOnly: true)
    }

    /// `getaddrinfo`'s stream addresses for `host`, IPv4 and IPv6, in its order.
    public func resolve(host: String, port: Int) throws -> [SocketAddress] {
        try SocketAddress.resolve(host: host, port: port)
    }
}

/// Host lookups run on the process's one worker pool.
typealias ResolverPool = WorkerPool
