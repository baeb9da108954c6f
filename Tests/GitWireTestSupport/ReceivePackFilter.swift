import Foundation

/// Writes an executable Python script at `path`: git-receive-pack (from `PATH`, given the script's
/// arguments) behind a filter, for `--receive-pack=<path>` or `LocalTransport.receivePack`.
///
/// The script first runs a shared prelude: it ends itself after `alarmSeconds` (`signal.alarm`),
/// starts `git-receive-pack` with both pipes, forwards its own standard input to the child's on
/// a thread, and defines `out` (the child's output), `read()` (one pkt-line's payload from `out`:
/// `b""` for a flush, `None` at the end), `write(payload)` (one pkt-line, or a flush for `b""`,
/// to standard output; flushed at once when `flushingEachWrite`) and `relay()` (flushes standard
/// output, copies the rest of `out` to it as it comes, and exits with the child's status). Then
/// comes `body`, the filter's own Python (at the top level, not indented), which relays the
/// child's output as it wants to and ends the script (`relay()`, or `sys.exit(child.wait())`).
public func writeReceivePackFilter(
    at path: String, alarmSeconds: Int = 60, flushingEachWrite: Bool = false, body: String
) throws {
    let flush = flushingEachWrite ? "\n    sys.stdout.flush()" : ""
    let script = """
        #!/usr/bin/env python3
        import os, signal, subprocess, sys, threading
        signal.alarm(\(alarmSeconds))
        child = subprocess.Popen(["git-receive-pack"] + sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        def forward():
            while True:
                data = os.read(0, 65536)
                if not data:
                    break
                child.stdin.write(data)
                child.stdin.flush()
            child.stdin.close()
        threading.Thread(target=forward, daemon=True).start()
        out = child.stdout
        def read():
            head = out.read(4)
            if len(head) < 4:
                return None
            size = int(head, 16)
            return b"" if size == 0 else out.read(size - 4)
        def write(payload):
            sys.stdout.buffer.write(b"0000" if payload == b"" else b"%04x" % (len(payload) + 4) + payload)\(flush)
        def relay():
            sys.stdout.flush()
            while True:
                data = out.read1(65536)
                if not data:
                    break
                sys.stdout.buffer.write(data)
                sys.stdout.flush()
            sys.exit(child.wait())

        """
    try (script + body).write(toFile: path, atomically: true, encoding: .utf8)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
}
