import Foundation
import GitWireTestSupport
import Testing

/// A planted `objects/info/commit-graph` that is far larger than its commits justify: git's own
/// graph with an extra chunk of 512 MiB (a sparse hole; unknown chunks are allowed, and the
/// trailing checksum recomputed, so the file is valid). git maps the file and reads only what it
/// needs; gitwire read it whole before looking at it (peak memory over 512 MiB, and a sparse file
/// of 64 GiB would have exhausted memory). It must push as git pushes, reading the commits
/// instead of such a graph, without holding the file.
@Suite struct HostileCommitGraphSizeTests {
    /// Rewrites the commit-graph at `path` with an extra chunk `XXXX` of `extra` zero bytes
    /// after the others (left a hole in the file), its offsets and checksum made right again.
    static let padScript = """
        import hashlib, struct, sys
        path, extra = sys.argv[1], int(sys.argv[2])
        data = open(path, 'rb').read()
        count = data[6]
        entries = [(data[8 + 12 * i:12 + 12 * i], struct.unpack('>Q', data[12 + 12 * i:20 + 12 * i])[0])
                   for i in range(count + 1)]
        end = entries[-1][1]
        table = b''.join(cid + struct.pack('>Q', off + 12) for cid, off in entries[:-1])
        table += b'XXXX' + struct.pack('>Q', end + 12) + b'\\0\\0\\0\\0' + struct.pack('>Q', end + 12 + extra)
        head = data[:6] + bytes([count + 1, data[7]]) + table + data[8 + 12 * (count + 1):end]
        with open(path, 'wb') as out:
            out.write(head)
            out.truncate(len(head) + extra)
        digest = hashlib.sha1()
        with open(path, 'rb') as source:
            while True:
                block = source.read(1 << 20)
                if not block:
                    break
                digest.update(block)
        with open(path, 'ab') as out:
            out.write(digest.digest())
        """

    @Test("a valid commit-graph padded to 512 MiB is not read whole; the push is git's")
    func paddedGraphNotRead() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-hostile-graph")
        let repository = directory.appending("local")
        try git(["init", "--quiet", "--initial-branch=main", repository])
        for index in 1...5 {
            try "file \(index)\n".write(toFile: "\(repository)/f\(index)", atomically: true, encoding: .utf8)
            try git(["add", "."], in: repository)
            try git(
                ["commit", "--quiet", "-m", "c\(index)"], in: repository,
                environment: ["GIT_COMMITTER_DATE": "\(1_700_000_000 + index) +0000"])
        }
        try git(["repack", "-adq"], in: repository)
        try git(["commit-graph", "write", "--reachable", "--no-progress"], in: repository)
        let graph = "\(repository)/.git/objects/info/commit-graph"
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: graph)
        try run(["python3", "-c", Self.padScript, graph, String(512 << 20)])
        // git reads the padded graph as valid: `git commit-graph verify` passes.
        try git(["commit-graph", "verify"], in: repository)

        let ours = directory.appending("ours.git")
        let theirs = directory.appending("theirs.git")
        try git(["init", "--quiet", "--bare", ours])
        try git(["init", "--quiet", "--bare", theirs])
        try git(["push", "-q", theirs, "main"], in: repository)
        let measured = try measuringPeakMemory(
            ["env", "-C", repository, gitwireExecutable, "push", "-q", ours, "main"], killAfter: 120)
        #expect(measured.output.status == 0, "\(measured.output.errorText)")
        #expect(
            measured.peakMemory < peakMemoryBound(128 << 20), "peak \(mebibytes(measured.peakMemory))")
        try git(["fsck", "--full", "--strict"], in: ours)
        #expect(try gitText(["rev-parse", "main"], in: ours) == gitText(["rev-parse", "main"], in: theirs))
    }
}
