import Foundation
import GitWire
import GitWireTestSupport

/// A hostile server made from the real one: an `--upload-pack` command that runs
/// `git-upload-pack` and changes what it says before the pack, following `rules`. git and gitwire
/// are given the same command, so they meet exactly the same bytes. The proxy reads the server's
/// pkt-lines and, until the pack starts (the first side-band packet, a `packfile` header, or the
/// flush given by ``Rules/passthroughAfterFlushes``), rewrites them (a packet replaced by nothing
/// is dropped); then it copies the rest as it is. It kills itself after `lifetime` seconds, whatever happens.
struct UploadPackProxy {
    /// What to change. Packets are text (`"shallow <id>\n"`); `nil` stands for a flush and
    /// `"\u{1}"` alone for a delimiter.
    struct Rules: Encodable {
        /// Regular expression and replacement, applied to every data packet before the pack.
        var replace: [[String]] = []
        /// Packets to put before the data packet whose payload is exactly the first string.
        var before: [Before] = []
        /// Packets to put after the first data packet that the regular expression matches.
        var after: [After] = []
        /// Packets to put before the n-th flush (counted from 1), keyed by n.
        var beforeFlush: [String: [String?]] = [:]
        /// Packets to put before the first side-band packet (in v2, right after `packfile`).
        var beforeSideBand: [String] = []
        /// After this many flushes the proxy copies everything as it is.
        var passthroughAfterFlushes: Int = -1
        /// Cuts the pack short: only its first `bytes` go out (in one band-1 packet), then
        /// `packets`, then the proxy stops.
        var cutPack: CutPack?

        struct CutPack: Encodable {
            var bytes: Int
            var packets: [String]
        }

        struct Before: Encodable {
            var payload: String
            var packets: [String?]
        }

        struct After: Encodable {
            var pattern: String
            var packets: [String?]
        }

        enum CodingKeys: String, CodingKey {
            case replace, before, after
            case beforeFlush = "before_flush"
            case beforeSideBand = "before_sideband"
            case passthroughAfterFlushes = "passthrough_after_flushes"
            case cutPack = "cut_pack"
        }
    }

    /// The `--upload-pack` value: the quoted path is appended by whoever runs it.
    let command: String

    /// Writes the proxy and its rules into `directory`.
    init(_ rules: Rules, in directory: TemporaryDirectory, name: String = "proxy", lifetime: Int = 120) throws {
        let script = directory.appending("\(name).py")
        let rulesPath = directory.appending("\(name).json")
        try Data(Self.script.utf8).write(to: URL(fileURLWithPath: script))
        try JSONEncoder().encode(rules).write(to: URL(fileURLWithPath: rulesPath))
        let seconds = Int(Double(lifetime) * testSlowness)
        command = "python3 '\(script)' '\(rulesPath)' \(seconds)"
    }

    static let script = #"""
        import json, re, signal, subprocess, sys

        rules = json.load(open(sys.argv[1]))
        signal.alarm(int(sys.argv[2]))
        child = subprocess.Popen(["git-upload-pack", sys.argv[3]], stdout=subprocess.PIPE)
        source = child.stdout
        out = sys.stdout.buffer

        def read_exact(n):
            data = b""
            while len(data) < n:
                chunk = source.read(n - len(data))
                if not chunk:
                    return None
                data += chunk
            return data

        def packet(p):
            if p is None:
                return b"0000"
            if p == "\x01":
                return b"0001"
            data = p.encode() if isinstance(p, str) else p
            return b"%04x" % (len(data) + 4) + data

        flushes = 0
        used = set()
        pending = []
        while True:
            head = read_exact(4)
            if head is None:
                break
            length = int(head, 16)
            if length < 4:
                payload = None if length == 0 else length
                if payload is None:
                    flushes += 1
                    for p in rules["before_flush"].get(str(flushes), []):
                        out.write(packet(p))
                out.write(head)
                out.flush()
                if flushes == rules["passthrough_after_flushes"]:
                    break
                continue
            payload = read_exact(length - 4)
            if payload is None:
                break
            if payload[:1] in (b"\x01", b"\x02", b"\x03"):
                for p in rules["before_sideband"]:
                    out.write(packet(p))
                if rules.get("cut_pack"):
                    pending = [payload]
                else:
                    out.write(packet(payload))
                break
            packets = [payload]
            for pattern, replacement in rules["replace"]:
                packets = [re.sub(pattern.encode(), replacement.encode(), p) for p in packets]
            packets = [p for p in packets if p]
            for rule in rules["before"]:
                if payload == rule["payload"].encode():
                    packets = [packet(p)[4:] if p not in (None, "\x01") else p for p in rule["packets"]] + packets
            for rule in rules["after"]:
                if rule["pattern"] not in used and re.search(rule["pattern"].encode(), payload):
                    used.add(rule["pattern"])
                    packets = packets + [packet(p)[4:] if p not in (None, "\x01") else p for p in rule["packets"]]
            for p in packets:
                out.write(b"0000" if p is None else b"0001" if p == "\x01" else packet(p))
            out.flush()
            if payload == b"packfile\n":
                for p in rules["before_sideband"]:
                    out.write(packet(p))
                break
        out.flush()
        cut = rules.get("cut_pack")
        if cut:
            pack = b""
            while len(pack) < cut["bytes"]:
                if pending:
                    payload = pending.pop(0)
                else:
                    head = read_exact(4)
                    if head is None or int(head, 16) <= 4:
                        break
                    payload = read_exact(int(head, 16) - 4)
                    if payload is None:
                        break
                if payload[:1] == b"\x01":
                    pack += payload[1:]
                elif payload[:1] == b"\x02":
                    out.write(packet(payload))
            if cut["bytes"] > 0:
                out.write(packet(b"\x01" + pack[:cut["bytes"]]))
            for p in cut["packets"]:
                out.write(packet(p))
            out.flush()
            child.kill()
            sys.exit(0)
        while True:
            chunk = source.read1(65536)
            if not chunk:
                break
            out.write(chunk)
            out.flush()
        sys.exit(child.wait())
        """#
}
