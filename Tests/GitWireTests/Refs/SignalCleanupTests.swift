import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `SIGINT`, `SIGTERM` and `SIGHUP` landing in a clone or a fetch at several points (while a
/// real `git-upload-pack`, slowed by a relay, is in the middle of its advertisement or of the
/// pack, and while a fetch of thousands of refs updates them): the process dies by the signal,
/// as git does (a shell sees 130, 143, 129), and leaves no half-made repository, no
/// `tmp_pack_*` and no `*.lock`; a rerun succeeds.
@Suite("signals during clone and fetch")
struct SignalCleanupTests {
    /// What the fetches take: branches and tags, as a mirror of them.
    static let refspecs = ["+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"]

    /// Relays `git-upload-pack <repository>`'s output and, once `threshold` bytes have gone
    /// through, holds the rest until its reader is gone (or its lifetime ends), so a client
    /// sits in the middle of the advertisement or of the pack. Runs as gitwire's
    /// `--upload-pack` (the repository path appended).
    static let slowUploadPack = #"""
        import os, select, subprocess, sys, time
        threshold, lifetime, repository = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
        child = subprocess.Popen(["git-upload-pack", repository], stdout=subprocess.PIPE)
        sent, deadline = 0, time.monotonic() + lifetime
        out = sys.stdout.fileno()
        while True:
            chunk = os.read(child.stdout.fileno(), 65536)
            if not chunk:
                break
            if sent < threshold <= sent + len(chunk):
                cut = threshold - sent
                os.write(out, chunk[:cut])
                sent, chunk = threshold, chunk[cut:]
                poller = select.poll()
                poller.register(out, select.POLLERR)
                while time.monotonic() < deadline and not poller.poll(50):
                    pass
            try:
                os.write(out, chunk)
            except OSError:
                break
            sent += len(chunk)
        child.kill()
        child.wait()
        """#

    /// Starts a command, waits (bounded) until a path matching the glob exists, sends the
    /// signal, and prints how the command ended: `signal <n>`, `exit <n>`, or `never <n>` if
    /// the path never appeared (the command's exit status then).
    static let harness = #"""
        import glob, os, signal, subprocess, sys, time
        number, pattern, lifetime = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
        process = subprocess.Popen(sys.argv[4:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE)
        deadline = time.monotonic() + lifetime
        seen = False
        while time.monotonic() < deadline and process.poll() is None:
            if glob.glob(pattern):
                seen = True
                break
            time.sleep(0.001)
        if not seen:
            try:
                process.wait(timeout=max(1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
            process.wait()
            print("never", process.returncode, process.stderr.read().decode(errors="replace"))
            sys.exit(0)
        process.send_signal(number)
        try:
            process.wait(timeout=lifetime)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        code = process.returncode
        print(("signal %d" % -code) if code < 0 else ("exit %d" % code), process.stderr.read().decode(errors="replace"))
        """#

    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// Writes the two scripts into `directory`.
    static func scripts(_ directory: TemporaryDirectory) throws -> (relay: String, harness: String) {
        let relay = directory.appending("slow-upload-pack.py")
        let harness = directory.appending("harness.py")
        try slowUploadPack.write(toFile: relay, atomically: true, encoding: .utf8)
        try Self.harness.write(toFile: harness, atomically: true, encoding: .utf8)
        return (relay, harness)
    }

    /// Runs `arguments` (gitwire's) under the harness; returns its report.
    static func signalled(_ signal: Int32, when pattern: String, _ arguments: [String], harness: String) throws
        -> String
    {
        let lifetime = String(scaledForSlowRuns(seconds: 60))
        return try run(["python3", harness, String(signal), pattern, lifetime, gitwireExecutable] + arguments).text
    }

    /// A source whose pack is a few MiB (incompressible blobs), so a relay can hold it half-way.
    static func makeSource(_ directory: TemporaryDirectory, name: String = "source") throws -> String {
        let path = directory.appending(name)
        try git(["init", "-q", "-b", "main", path])
        for index in 0..<3 {
            try randomBytes(1 << 20).write(to: URL(fileURLWithPath: "\(path)/blob\(index)"))
            try git(["add", "blob\(index)"], in: path)
            try git(["commit", "-q", "-m", "c\(index)"], in: path)
        }
        return path
    }

    /// `count` random bytes, from the kernel (incompressible, so the pack is as large).
    static func randomBytes(_ count: Int) throws -> Data {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/urandom"))
        defer { try? handle.close() }
        return try handle.read(upToCount: count) ?? Data()
    }

    static func leftovers(in path: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: path)
        var found: [String] = []
        while let name = enumerator?.nextObject() as? String {
            let last = (name as NSString).lastPathComponent
            if last.hasSuffix(".lock") || last.hasPrefix("tmp_") { found.append(name) }
        }
        return found
    }

    @Test(arguments: signals, [true, false])
    func cloneKilledMidAdvertisementOrPackLeavesNothing(signal: Int32, bare: Bool) throws {
        let directory = try TemporaryDirectory()
        let source = try Self.makeSource(directory)
        let (relay, harness) = try Self.scripts(directory)
        let lifetime = scaledForSlowRuns(seconds: 60)
        let mode = bare ? ["--bare"] : []
        let gitDirectory = bare ? "" : "/.git"
        // Mid-advertisement (40 bytes in), then mid-pack (1 MiB in).
        for (threshold, pattern) in [(40, "HEAD"), (1 << 20, "objects/pack/tmp_pack_*")] {
            let target = directory.appending("clone-\(threshold)\(bare ? ".git" : "")")
            let report = try Self.signalled(
                signal, when: "\(target)\(gitDirectory)/\(pattern)",
                ["clone", "-q"] + mode + ["--upload-pack=python3 \(relay) \(threshold) \(lifetime)", source, target],
                harness: harness)
            #expect(report.hasPrefix("signal \(signal) "), "\(report)")
            #expect(!FileManager.default.fileExists(atPath: target), "\(Self.leftovers(in: target))")
            // The retry is not refused.
            let again = try gitwire(["clone", "-q"] + mode + [source, target])
            #expect(again.status == 0, "\(again.errorText)")
            try git(["fsck", "--no-dangling"], in: target)
        }
    }

    /// A clone into a directory that existed and was empty: emptied and kept, as git keeps it.
    @Test func cloneIntoAnEmptyDirectoryKeepsIt() throws {
        let directory = try TemporaryDirectory()
        let source = try Self.makeSource(directory)
        let (relay, harness) = try Self.scripts(directory)
        let target = directory.appending("empty")
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
        let report = try Self.signalled(
            SIGINT, when: "\(target)/objects/pack/tmp_pack_*",
            ["clone", "-q", "--bare", "--upload-pack=python3 \(relay) \(1 << 20) 60", source, target],
            harness: harness)
        #expect(report.hasPrefix("signal \(SIGINT) "), "\(report)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: target).isEmpty)
    }

    @Test(arguments: signals)
    func fetchKilledMidPackLeavesTheRepositoryAsItWas(signal: Int32) throws {
        let directory = try TemporaryDirectory()
        let source = try Self.makeSource(directory)
        let (relay, harness) = try Self.scripts(directory)
        let target = directory.appending("repo.git")
        try git(["clone", "-q", "--bare", source, target])
        try Self.randomBytes(3 << 20).write(to: URL(fileURLWithPath: "\(source)/more"))
        try git(["add", "more"], in: source)
        try git(["commit", "-q", "-m", "more"], in: source)
        let before = try gitText(["for-each-ref"], in: target)
        let packs = try FileManager.default.contentsOfDirectory(atPath: "\(target)/objects/pack").sorted()
        let report = try Self.signalled(
            signal, when: "\(target)/objects/pack/tmp_pack_*",
            ["fetch", "-q", "--upload-pack=python3 \(relay) \(1 << 20) 60", source, target] + Self.refspecs,
            harness: harness)
        #expect(report.hasPrefix("signal \(signal) "), "\(report)")
        #expect(Self.leftovers(in: target).isEmpty, "\(Self.leftovers(in: target))")
        #expect(try gitText(["for-each-ref"], in: target) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(target)/objects/pack").sorted() == packs)
        let again = try gitwire(["fetch", "-q", source, target] + Self.refspecs)
        #expect(again.status == 0, "\(again.errorText)")
        #expect(try gitText(["for-each-ref"], in: target) == gitText(["for-each-ref", "refs/heads"], in: source))
    }

    /// The signal lands while thousands of new refs are being written (with `--atomic` while
    /// their locks are all held): no lock is left, and the rerun brings every ref.
    @Test(arguments: signals, [false, true])
    func fetchKilledDuringRefUpdateLeavesNoLock(signal: Int32, atomic: Bool) throws {
        let directory = try TemporaryDirectory()
        let source = directory.appending("source")
        try git(["init", "-q", "-b", "main", source])
        try git(["commit", "-q", "--allow-empty", "-m", "one"], in: source)
        let (_, harness) = try Self.scripts(directory)
        let target = directory.appending("repo.git")
        try git(["clone", "-q", "--bare", source, target])
        let head = try gitText(["rev-parse", "HEAD"], in: source).trimmingCharacters(in: .whitespacesAndNewlines)
        // Written straight into packed-refs: creating thousands of loose refs is slow here.
        try RefUpdateFetchTests.setPackedRefs(
            source, [("refs/heads/main", head)] + (1...5000).map { ("refs/heads/b\(String(format: "%05d", $0))", head) }
        )
        // A lock (--atomic: the first one, held until all are taken) or the first new ref.
        let pattern = atomic ? "\(target)/refs/heads/b00001.lock" : "\(target)/refs/heads/b0000[1-9]*"
        let report = try Self.signalled(
            signal, when: pattern, ["fetch", "-q"] + (atomic ? ["--atomic"] : []) + [source, target] + Self.refspecs,
            harness: harness)
        #expect(report.hasPrefix("signal \(signal) "), "\(report)")
        #expect(Self.leftovers(in: target).isEmpty, "\(Self.leftovers(in: target).prefix(5))")
        let again = try gitwire(["fetch", "-q", source, target] + Self.refspecs)
        #expect(again.status == 0, "\(again.errorText)")
        #expect(try gitText(["for-each-ref"], in: target) == gitText(["for-each-ref", "refs/heads"], in: source))
        try git(["fsck", "--no-dangling"], in: target)
    }
    /// A signal that another thread takes while one thread has created a file and not yet
    /// registered it (the clone and fetch commands update refs on a worker while the main thread
    /// waits on its run loop): the process still dies by the signal, once the file is
    /// registered, and the file is removed.
    @Test func aSignalTakenWhileAnotherThreadRegistersAFileWaitsForIt() throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("ref.lock")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: testHelperExecutable)
        process.arguments = ["signal-between-create-and-register", path]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let deadline = Date() + Double(scaledForSlowRuns(seconds: 30))
        while !FileManager.default.fileExists(atPath: path), process.isRunning, Date() < deadline { usleep(1000) }
        try #require(FileManager.default.fileExists(atPath: path))
        kill(process.processIdentifier, SIGINT)
        // Until the main thread has taken the signal (it is no longer pending), then let the
        // worker register the file.
        while process.isRunning, Date() < deadline,
            Self.pendingSignals(process.processIdentifier) & (1 << (SIGINT - 1)) != 0
        {
            usleep(1000)
        }
        #expect(FileManager.default.createFile(atPath: path + ".signalled", contents: nil))
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(process.terminationStatus == SIGINT)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    /// The signals pending for the whole process `pid` (`ShdPnd` in `/proc/<pid>/status`).
    static func pendingSignals(_ pid: Int32) -> UInt64 {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("ShdPnd:") })
        else { return 0 }
        return UInt64(line.dropFirst(7).trimmingCharacters(in: .whitespaces), radix: 16) ?? 0
    }
}
