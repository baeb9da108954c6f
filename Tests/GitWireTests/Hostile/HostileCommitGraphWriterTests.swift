import Foundation
import GitWireTestSupport
import Testing

/// The commit-graph writer (`fetch --write-commit-graph`) against planted files under
/// `objects/info/commit-graphs`: it reads the chain it writes on top of, so what it reads is
/// bounded as the reader's is, and it never writes or removes anything outside that directory.
@Suite struct HostileCommitGraphWriterTests {
    /// Plants in `graphs` a chain of one layer whose fan-out claims `commits` commits, the file
    /// a sparse hole of `commits` KiB (within what a layer of that many commits may weigh).
    static let plantScript = """
        import struct, sys, os
        graphs, commits = sys.argv[1], int(sys.argv[2])
        name = 'ab' * 20
        os.makedirs(graphs, exist_ok=True)
        table = b'OIDF' + struct.pack('>Q', 32) + b'\\0\\0\\0\\0' + struct.pack('>Q', 32 + 1024)
        with open(f'{graphs}/graph-{name}.graph', 'wb') as out:
            out.write(b'CGPH\\x01\\x01\\x01\\x00' + table + struct.pack('>I', commits) * 256)
            out.truncate(commits * 1024)
        with open(f'{graphs}/commit-graph-chain', 'w') as out:
            out.write(name + '\\n')
        """

    /// An upstream of two commits, and a clone of its first (`local`, a work tree) to fetch the
    /// second into.
    func repositories(_ directory: TemporaryDirectory) throws -> (upstream: String, local: String) {
        let upstream = directory.appending("up")
        let local = directory.appending("local")
        try git(["init", "-q", "-b", "main", upstream])
        try git(["commit", "-q", "--allow-empty", "-m", "one"], in: upstream)
        try git(["clone", "-q", upstream, local])
        try git(["commit", "-q", "--allow-empty", "-m", "two"], in: upstream)
        return (upstream, local)
    }

    /// A layer claiming 512 Ki commits in a repository of two, 512 MiB of hole: the writer read
    /// it whole (peak memory over 512 MiB; a hole of 64 GiB claiming 64 Mi commits would have
    /// exhausted memory). git 2.39 refuses it (`commit-graph is missing the OID Lookup chunk`)
    /// with 5 MiB, writes a chain of its new layer alone and removes the planted one.
    @Test("a planted layer claiming more commits than the repository has is not read")
    func plantedLayerNotRead() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-hostile-graph-writer")
        let (_, local) = try repositories(directory)
        let graphs = "\(local)/.git/objects/info/commit-graphs"
        try run(["python3", "-c", Self.plantScript, graphs, String(512 * 1024)])
        let measured = try measuringPeakMemory(
            ["env", "-C", local, gitwireExecutable, "fetch", "-q", "--write-commit-graph"], killAfter: 120)
        #expect(measured.output.status == 0, "\(measured.output.errorText)")
        #expect(measured.peakMemory < peakMemoryBound(128 << 20), "peak \(mebibytes(measured.peakMemory))")
        let files = try FileManager.default.contentsOfDirectory(atPath: graphs).sorted()
        #expect(files.count == 2 && !files.contains("graph-\(String(repeating: "ab", count: 20)).graph"), "\(files)")
        try git(["commit-graph", "verify"], in: local)
    }

    /// `objects/info/commit-graphs` a symbolic link to a directory of the user's: the writer
    /// wrote its layer and chain there and removed the `graph-*.graph` files it found (git 2.39
    /// does too, and removes every `*.graph` file older than now). Now nothing is written or
    /// removed there; the fetch itself succeeds. A planted layer name that is no checksum is not
    /// removed from the real directory either (git removes it).
    @Test("a commit-graphs directory that is a symbolic link is left alone")
    func linkedDirectoryLeftAlone() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-hostile-graph-writer")
        let (upstream, local) = try repositories(directory)
        let outside = directory.appending("outside")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        for name in ["graph-0000.graph", "graph-\(String(repeating: "cd", count: 20)).graph", "notes.graph"] {
            try "precious\n".write(toFile: "\(outside)/\(name)", atomically: false, encoding: .utf8)
        }
        let graphs = "\(local)/.git/objects/info/commit-graphs"
        try FileManager.default.createDirectory(
            atPath: "\(local)/.git/objects/info", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: graphs, withDestinationPath: outside)
        let fetched = try gitwire(["fetch", "-q", "--write-commit-graph"], in: local)
        #expect(fetched.status == 0, "\(fetched.errorText)")
        #expect(
            try gitText(["rev-parse", "origin/main"], in: local) == gitText(["rev-parse", "main"], in: upstream))
        let files = try FileManager.default.contentsOfDirectory(atPath: outside).sorted()
        #expect(
            files == ["graph-0000.graph", "graph-\(String(repeating: "cd", count: 20)).graph", "notes.graph"],
            "\(files)")

        // In the real directory, only names of layers are removed.
        try FileManager.default.removeItem(atPath: graphs)
        try FileManager.default.createDirectory(atPath: graphs, withIntermediateDirectories: true)
        for name in ["graph-0000.graph", "notes.graph", "graph-\(String(repeating: "cd", count: 20)).graph"] {
            try "planted\n".write(toFile: "\(graphs)/\(name)", atomically: false, encoding: .utf8)
        }
        try git(["commit", "-q", "--allow-empty", "-m", "three"], in: upstream)
        let again = try gitwire(["fetch", "-q", "--write-commit-graph"], in: local)
        #expect(again.status == 0, "\(again.errorText)")
        let left = try FileManager.default.contentsOfDirectory(atPath: graphs).sorted()
        #expect(left.count == 4 && left.contains("graph-0000.graph") && left.contains("notes.graph"), "\(left)")
        try git(["commit-graph", "verify"], in: local)
    }

    /// A `commit-graph-chain.lock` left behind: gitwire wrote its layer first, then failed on the
    /// lock in words of its own (`fatal: open …: File exists`), the layer left out of any chain.
    /// git takes the lock first: nothing written, its `Unable to create …: File exists.` message.
    /// Now as git.
    @Test("a stale chain lock stops the write before any layer, in git's words")
    func staleLockStopsFirst() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-hostile-graph-writer")
        let (upstream, _) = try repositories(directory)
        var errors: [String] = []
        for side in ["git", "ours"] {
            let local = directory.appending(side)
            try git(["clone", "-q", upstream, local])
            try git(["commit", "-q", "--allow-empty", "-m", side], in: upstream)
            let graphs = "\(local)/.git/objects/info/commit-graphs"
            try FileManager.default.createDirectory(atPath: graphs, withIntermediateDirectories: true)
            try "".write(toFile: "\(graphs)/commit-graph-chain.lock", atomically: false, encoding: .utf8)
            let result =
                side == "git"
                ? try git(["fetch", "-q", "--write-commit-graph"], in: local, check: false)
                : try gitwire(["fetch", "-q", "--write-commit-graph"], in: local)
            #expect(result.status == 128, "\(side): \(result.errorText)")
            errors.append(result.errorText.replacingOccurrences(of: local, with: "<local>"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: graphs) == ["commit-graph-chain.lock"])
        }
        #expect(errors[1] == errors[0])
    }
}
