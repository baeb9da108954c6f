import Glibc

/// Process-wide resource limits.
public enum ResourceLimits {
    /// Raises the soft limit on open descriptors to the hard limit and returns the new limit.
    @discardableResult
    public static func raiseOpenFileLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(RLIMIT_NOFILE_VALUE, &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(RLIMIT_NOFILE_VALUE, &limit)
        }
        return Int(clamping: limit.rlim_cur)
    }
}

private let RLIMIT_NOFILE_VALUE = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
