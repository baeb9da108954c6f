import GitWireCore
import Glibc

/// Blocking waits on one descriptor, for the sync helpers.
package enum Poll {
    /// Waits until `fd` is readable (or writable), or `timeout` passes; nil waits forever.
    /// Returns false on timeout. Hang-ups and errors count as ready: the next call reports them.
    package static func wait(_ fd: FileDescriptor, forWriting: Bool, timeout: Duration?) throws -> Bool {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        var entry = pollfd(fd: fd.rawValue, events: Int16(forWriting ? POLLOUT : POLLIN), revents: 0)
        while true {
            var waitMilliseconds: CInt = -1
            if let deadline {
                let left = deadline - ContinuousClock.now
                if left <= .zero { return false }
                waitMilliseconds = CInt(clamping: milliseconds(rounding: left))
            }
            let result = poll(&entry, 1, waitMilliseconds)
            if result > 0 { return true }
            if result == 0 {
                if deadline == nil { continue }
                if ContinuousClock.now >= deadline! { return false }
                continue
            }
            let error = Errno.current
            if error == .interrupted { continue }
            throw SystemCallError("poll", error)
        }
    }
}

/// Whole milliseconds in `duration`, rounded up so a wait never ends early; `Int64.max` for a
/// duration too long to count in milliseconds (and zero or less for one not positive).
package func milliseconds(rounding duration: Duration) -> Int64 {
    let (seconds, attoseconds) = duration.components
    let fraction = (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
    let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1000)
    guard !overflow else { return seconds > 0 ? .max : .min }
    let (total, overflowAgain) = whole.addingReportingOverflow(fraction)
    return overflowAgain ? (seconds > 0 ? .max : .min) : total
}
