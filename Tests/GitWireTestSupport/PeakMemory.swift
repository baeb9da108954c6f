import Foundation

/// What a command printed, how it ended, and the most memory it held at once.
public struct MeasuredRun: Sendable {
    /// What it printed and its status.
    public var output: ProcessOutput
    /// Its peak resident set size (the kernel's `ru_maxrss`, as `/usr/bin/time -f %M` reports it),
    /// in bytes.
    public var peakMemory: Int
}

/// Runs `arguments` under `/usr/bin/time` (installed by `Tools/setup.sh`) and reports its peak
/// resident memory: for tests that bound what a child process holds, never how long it took.
/// With `killAfter`, a run that has not ended after that many seconds (scaled by
/// ``testSlowness``) is killed, so that a hang fails the test rather than stalling it.
public func measuringPeakMemory(
    _ arguments: [String], environment: [String: String] = [:], input: [UInt8] = [], killAfter: Int? = nil
) throws -> MeasuredRun {
    let directory = try TemporaryDirectory(prefix: "gitwire-peak")
    let report = directory.appending("time")
    let limit = killAfter.map { ["timeout", "--signal=KILL", String(scaledForSlowRuns(seconds: $0))] } ?? []
    let output = try run(
        limit + ["/usr/bin/time", "-f", "%M", "-o", report] + arguments, environment: environment, input: input,
        check: false)
    let text = try String(contentsOfFile: report, encoding: .utf8)
    // A command that fails makes time write "Command exited with non-zero status N" first.
    guard let kibibytes = text.split(separator: "\n").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
    else {
        throw CommandFailed(command: arguments, output: output)
    }
    return MeasuredRun(output: output, peakMemory: kibibytes * 1024)
}

/// `bytes` in MiB, for messages.
public func mebibytes(_ bytes: Int) -> String { String(format: "%.1f MiB", Double(bytes) / 1_048_576) }

/// Whether the `gitwire` under test is built with AddressSanitizer or ThreadSanitizer
/// (`Tools/sanitize.sh`), which multiply what a process holds (shadow memory, quarantine).
public let gitwireIsInstrumented: Bool = {
    guard let binary = FileManager.default.contents(atPath: gitwireExecutable) else { return false }
    return ["__asan_init", "__tsan_init"].contains { binary.range(of: Data($0.utf8)) != nil }
}()

/// A bound on a `gitwire` process's peak memory: `bytes`, or far more under a sanitizer.
public func peakMemoryBound(_ bytes: Int) -> Int { gitwireIsInstrumented ? max(bytes * 8, 1 << 30) : bytes }
