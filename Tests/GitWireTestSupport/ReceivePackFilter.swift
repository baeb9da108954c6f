import Foundation

/// Writes an executable Python script at `path`: git-receive-pack (from `PATH`, given the script's
/// arguments) behind a filter, for `--receive-pack=<path>` or `LocalTransport.receivePack`.
///
/// The script first runs the shared prelude `Tools/receive-pack-filter-prelude.py` (which
/// `Tools/bench-push-hostile.sh` writes too): it ends itself after `alarmSeconds`
/// (`signal.alarm`), starts `git-receive-pack` with both pipes, forwards its own standard input to
/// the child's on a thread, and defines `out` (the child's output), `read()` (one pkt-line's
/// payload from `out`: `b""` for a flush, `None` at the end), `write(payload)` (one pkt-line, or
/// a flush for `b""`, to standard output; flushed at once when `flushingEachWrite`) and `relay()`
/// (flushes standard output, copies the rest of `out` to it as it comes, and exits with the
/// child's status). Then comes `body`, the filter's own Python (at the top level, not indented),
/// which relays the child's output as it wants to and ends the script (`relay()`, or
/// `sys.exit(child.wait())`).
public func writeReceivePackFilter(
    at path: String, alarmSeconds: Int = 60, flushingEachWrite: Bool = false, body: String
) throws {
    let prelude = try String(contentsOfFile: "\(toolsDirectory)/receive-pack-filter-prelude.py", encoding: .utf8)
    let script = """
        #!/usr/bin/env python3
        alarm_seconds = \(alarmSeconds)
        flush_each_write = \(flushingEachWrite ? "True" : "False")

        """
    try (script + prelude + body).write(toFile: path, atomically: true, encoding: .utf8)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
}
