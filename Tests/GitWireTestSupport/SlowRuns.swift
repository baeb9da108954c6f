import Foundation

/// How many times longer than usual the tests' waits may take: the factor in
/// `GITWIRE_TEST_SLOW` (`Tools/sanitize.sh` sets it, since a sanitizer makes everything several
/// times slower), 1 when it is unset. Waits that must not run out before the thing waited for
/// happens (server lifetimes, timeouts expected to fire only after the server's first bytes)
/// are multiplied by it; no test asserts how long anything took.
public let testSlowness: Double = {
    guard let text = ProcessInfo.processInfo.environment["GITWIRE_TEST_SLOW"], !text.isEmpty else { return 1 }
    guard let factor = Double(text), factor >= 1, factor.isFinite else {
        fatalError("GITWIRE_TEST_SLOW must be a number of at least 1, not '\(text)'")
    }
    return factor
}()

/// `seconds`, ``testSlowness`` times as many: for the lifetimes of servers run under `timeout`.
public func scaledForSlowRuns(seconds: Int) -> Int { Int((Double(seconds) * testSlowness).rounded(.up)) }

extension Duration {
    /// This duration, ``testSlowness`` times as long, in whole milliseconds.
    public var scaledForSlowRuns: Duration {
        guard testSlowness != 1 else { return self }
        return .milliseconds(Int64((Double(wholeMilliseconds) * testSlowness).rounded()))
    }

    private var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }

    /// The duration in seconds as gitwire prints it in timeout messages and takes it in
    /// `--timeout`: `0.2`, `1`, `12.5`.
    public var secondsText: String {
        let text = String(Double(wholeMilliseconds) / 1000)
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }
}

/// Looks at `condition` every 10 ms until it holds or `timeout` (scaled by ``testSlowness``)
/// has passed; returns whether it held.
public func waitUntil(within timeout: Duration, _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + timeout.scaledForSlowRuns
    while true {
        if condition() { return true }
        if ContinuousClock.now >= deadline { return false }
        usleep(10_000)
    }
}
