import GitWireCore
import Glibc

/// Process-wide resource limits.
package enum ResourceLimits {
    /// Raises the soft limit on open descriptors to the hard limit and returns the new limit.
    @discardableResult
    package static func raiseOpenFileLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(openFileResource, &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(openFileResource, &limit)
        }
        return Int(clamping: limit.rlim_cur)
    }

    /// The soft limit on open descriptors (1,024 if it cannot be read).
    package static func openFileLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(openFileResource, &limit) == 0 else { return 1024 }
        return Int(clamping: limit.rlim_cur)
    }
}

private let openFileResource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
