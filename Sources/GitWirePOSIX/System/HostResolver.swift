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

/// Runs blocking lookups on at most `limit` threads, started as work arrives and ending when
/// none is left, so an idle process keeps no resolver thread.
final class ResolverPool: Sendable {
    static let shared = ResolverPool(limit: 4)

    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var next = 0
        var threads = 0
    }

    private let limit: Int
    private let state = Locked(State())

    init(limit: Int) { self.limit = limit }

    /// Runs `job` on a resolver thread.
    func submit(_ job: @escaping @Sendable () -> Void) {
        let needsThread = state.withLock { state in
            state.jobs.append(job)
            guard state.threads < limit else { return false }
            state.threads += 1
            return true
        }
        guard needsThread else { return }
        do {
            try startDetachedThread { self.drain() }
        } catch {
            // No thread to be had: do the work here rather than leave it queued with no taker.
            drain()
        }
    }

    private func drain() {
        while let job = state.withLock({ state -> (@Sendable () -> Void)? in
            guard state.next < state.jobs.count else {
                state.jobs.removeAll()
                state.next = 0
                state.threads -= 1
                return nil
            }
            defer { state.next += 1 }
            return state.jobs[state.next]
        }) {
            job()
        }
    }
}
