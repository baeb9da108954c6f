import Foundation
import GitWire
import GitWireReplay
import GitWireTestSupport
import Testing

@testable import GitWirePOSIX

/// `gitwire record-proxy` in front of servers whose answers are far larger than the request
/// (issue #19, D17: 1 MB of gzip took it to 12.6 GB and a 2 GB fixture): the proxy reads an
/// answer only as fast as its client takes it, records at most `--max-session-size` MiB per
/// session, and a session past that fails with a clear error and leaves no fixture.
@Suite("record-proxy bounds", .serialized)
struct RecordProxyBoundsTests {
    static let server = Result { try HTTPServer(root: TestRepositories.shared.basePath) }

    /// What one proxy run did: its output and status, its peak memory, the client's output,
    /// the files it left in its output directory.
    struct ProxyRun {
        var proxy: ProcessOutput
        var peakMemory: Int
        var client: ProcessOutput
        var files: [String]
        var directory: TemporaryDirectory
    }

    /// Runs `gitwire record-proxy --connections=1` to `upstream` with `options` under
    /// `/usr/bin/time`, then `client` (a shell command line in which `$port` is the proxy's port)
    /// once the proxy listens; everything is killed after two minutes.
    static func recordOneSession(upstream: String, options: [String], client: String) throws -> ProxyRun {
        let directory = try TemporaryDirectory()
        let out = directory.appending("out")
        let script = """
            work=$1
            shift
            /usr/bin/time -f %M -o "$work/time" "$@" 2>"$work/proxy.err" >"$work/proxy.out" &
            proxy=$!
            port=
            for _ in $(seq 400); do
                port=$(sed -n 's/^record-proxy: listening on 127.0.0.1:\\([0-9]*\\),.*/\\1/p' "$work/proxy.err")
                [ -n "$port" ] && break
                sleep 0.05
            done
            (\(client)) >"$work/client.out" 2>"$work/client.err"
            echo $? >"$work/client.status"
            wait $proxy
            """
        let proxyCommand =
            [
                gitwireExecutable, "record-proxy", "--listen=127.0.0.1:0", "--upstream=\(upstream)", "--out=\(out)",
                "--connections=1", "--idle-timeout=60",
            ] + options
        let result = try run(
            [
                "timeout", "--signal=KILL", String(scaledForSlowRuns(seconds: 120)), "sh", "-c", script, "record",
                directory.path,
            ] + proxyCommand,
            environment: reproducibleGitEnvironment, check: false)
        _ = result
        func read(_ name: String) -> [UInt8] {
            [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: directory.appending(name)))) ?? Data())
        }
        // time's report: the peak in KiB, after "Command exited with non-zero status N" if it failed.
        var proxyStatus: Int32 = -1
        var peak = -1
        for line in String(decoding: read("time"), as: UTF8.self).split(separator: "\n") {
            if line.hasPrefix("Command exited with non-zero status ") {
                proxyStatus = Int32(line.split(separator: " ").last ?? "") ?? -1
            } else if let kibibytes = Int(line) {
                peak = kibibytes * 1024
                if proxyStatus == -1 { proxyStatus = 0 }
            }
        }
        let clientStatus = Int32(String(decoding: read("client.status"), as: UTF8.self).filter(\.isNumber)) ?? -1
        return ProxyRun(
            proxy: ProcessOutput(
                status: proxyStatus, standardOutput: read("proxy.out"), standardError: read("proxy.err")),
            peakMemory: peak,
            client: ProcessOutput(
                status: clientStatus, standardOutput: read("client.out"), standardError: read("client.err")),
            files: ((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []).sorted(), directory: directory)
    }

    /// A clone whose fetch answer expands to 64 MiB of keep-alives, through a proxy that may record
    /// 8 MiB: the proxy closes the connection once the session passes that, writes nothing, and
    /// fails with the limit; it never held the answer whole.
    @Test func aSessionPastTheLimitFailsAndLeavesNoFixture() throws {
        let server = try Self.server.get()
        let run = try Self.recordOneSession(
            upstream: server.url(""), options: ["--max-session-size=8"],
            client:
                "git clone --bare -q \"http://127.0.0.1:$port/hostile/gzip-bomb-post/keepalive/64/small.git\" \"$work/clone.git\""
        )
        #expect(run.proxy.status == 128, "\(run.proxy.errorText)")
        #expect(
            run.proxy.errorText.hasSuffix(
                "fatal: the session grew past the recording limit of 8 MiB; the connection was closed and nothing written\n"
            ), "\(run.proxy.errorText)")
        #expect(run.client.status != 0)
        #expect(run.files.isEmpty, "\(run.files)")
        #expect(run.peakMemory > 0 && run.peakMemory < peakMemoryBound(100 << 20), "peak \(mebibytes(run.peakMemory))")
    }

    /// An ls-refs answer of 512 MiB of flush packets, which git stops reading after the first: the
    /// proxy reads upstream no further than about 1 MiB ahead of its client, so the session it
    /// writes is a few MiB and its memory stays small (the old proxy read and recorded all of it).
    @Test func theProxyReadsNoFasterThanItsClient() throws {
        let server = try Self.server.get()
        let run = try Self.recordOneSession(
            upstream: server.url(""), options: [],
            client:
                "git -c protocol.version=2 ls-remote \"http://127.0.0.1:$port/hostile/gzip-bomb-post/flush/512/small.git\""
        )
        #expect(run.proxy.status == 0, "\(run.proxy.errorText)")
        #expect(run.files == ["connection-001.session"])
        let size =
            try FileManager.default.attributesOfItem(
                atPath: run.directory.appending("out/connection-001.session"))[.size] as? Int ?? .max
        #expect(size < 64 << 20, "fixture of \(mebibytes(size))")
        let session = try Session(contentsOfFile: run.directory.appending("out/connection-001.session"))
        #expect(session.path == "/hostile/gzip-bomb-post/flush/512/small.git")
        #expect(run.peakMemory > 0 && run.peakMemory < peakMemoryBound(100 << 20), "peak \(mebibytes(run.peakMemory))")
    }

    /// The git:// proxy has the same limit: a clone of a repository with a 3 MiB random blob
    /// through a proxy that may record 1 MiB fails, and nothing is written.
    @Test func theGitProxyHasTheSameLimit() throws {
        let directory = try TemporaryDirectory()
        let repository = directory.appending("blob.git")
        try git(["init", "-q", "--bare", repository])
        let blob = try git(
            ["hash-object", "-w", "--stdin"], in: repository,
            input: (0..<(3 << 20)).map { _ in UInt8.random(in: 0...255) }
        ).text.trimmingCharacters(in: .whitespacesAndNewlines)
        let tree = try git(["mktree"], in: repository, input: Array("100644 blob \(blob)\tdata\n".utf8)).text
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let commit = try gitText(["commit-tree", "-m", "data", tree], in: repository)
        try git(["update-ref", "refs/heads/main", commit], in: repository)
        let daemon = try GitDaemon(basePath: directory.path, lifetime: 300)
        let upstream = String(daemon.url("").dropLast())
        let run = try Self.recordOneSession(
            upstream: upstream, options: ["--max-session-size=1"],
            client: "git clone --bare -q \"git://127.0.0.1:$port/blob.git\" \"$work/clone.git\"")
        #expect(run.proxy.status == 128, "\(run.proxy.errorText)")
        #expect(
            run.proxy.errorText.hasSuffix(
                "fatal: the session grew past the recording limit of 1 MiB; the connection was closed and nothing written\n"
            ), "\(run.proxy.errorText)")
        #expect(run.client.status != 0)
        #expect(run.files.isEmpty, "\(run.files)")
        // Within the limit, the same clone is recorded.
        let recorded = try Self.recordOneSession(
            upstream: upstream, options: ["--max-session-size=16"],
            client: "git clone --bare -q \"git://127.0.0.1:$port/blob.git\" \"$work/clone.git\"")
        #expect(recorded.proxy.status == 0, "\(recorded.proxy.errorText)")
        #expect(recorded.files == ["connection-001.session"])
    }

    /// A client that sends its request, shuts down its writing side and then reads slowly still
    /// gets every byte of the answer through the git:// proxy: when both sides have ended, what
    /// the proxy still holds for the client goes out before the connection (and, with
    /// `--connections=1`, the proxy) closes. The old proxy dropped it (2.7 of 8 MiB arrived).
    @Test func aSlowHalfClosedClientGetsTheWholeAnswer() throws {
        let answer = (0..<(8 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let listener = try ListeningSocket()
        let upstream = "git://127.0.0.1:\(listener.address.port)"
        let served = Locked<Int>(0)
        nonisolated(unsafe) let unsafeListener = listener
        Thread {
            // One connection: the request to its end, then the answer, then the end.
            defer { unsafeListener.close() }
            guard let pair = try? unsafeListener.accept(timeout: .seconds(120).scaledForSlowRuns) else { return }
            pair.setTimeout(.seconds(120).scaledForSlowRuns)
            while let bytes = try? pair.input.read(), !bytes.isEmpty {}
            if (try? pair.output.writeFully(answer)) != nil { served.withLock { $0 = answer.count } }
            pair.close()
        }.start()
        let client = """
            python3 -c '
            import socket, sys, time
            c = socket.socket()
            c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            c.settimeout(60)
            c.connect(("127.0.0.1", int(sys.argv[1])))
            request = b"git-upload-pack /x.git\\0host=h\\0"
            c.sendall(b"%04x" % (len(request) + 4) + request)
            c.shutdown(socket.SHUT_WR)
            time.sleep(2)
            got = 0
            while True:
                data = c.recv(65536)
                if not data: break
                got += len(data)
            print(got)
            ' "$port"
            """
        let run = try Self.recordOneSession(upstream: upstream, options: [], client: client)
        #expect(served.withLock { $0 } == answer.count)
        #expect(run.client.text == "\(answer.count)\n", "\(run.client.errorText)")
        #expect(run.proxy.status == 0, "\(run.proxy.errorText)")
        #expect(run.files == ["connection-001.session"])
    }

    @Test func theLimitOptionIsChecked() throws {
        #expect(HTTPRecordingProxy.defaultRecordingLimit == 256 << 20)
        let directory = try TemporaryDirectory()
        for value in ["0", "-1", "1048577"] {
            let result = try gitwire([
                "record-proxy", "--listen=127.0.0.1:0", "--upstream=git://127.0.0.1:1", "--out=\(directory.path)",
                "--max-session-size=\(value)",
            ])
            #expect(result.status == 128)
            #expect(
                result.errorText == "fatal: --max-session-size takes a number of MiB from 1 to 1048576, not \(value)\n")
        }
    }
}
