import GitWire
import GitWireTestSupport
import Testing

/// `PackWriter` searches for deltas on several threads; its pack must still depend only on its
/// input and options, or a recorded push could not be replayed byte for byte
/// (`Replay push sessions`). Each thread searches a fixed slice of the sorted candidates (cut by
/// the candidate count and `threads` alone, never by timing) and the results are keyed by
/// candidate; whether a found delta's compressed bytes are kept in the shared 32 MiB cache
/// depends on timing, but one not kept is made again from the same base and target and
/// compressed the same way. The slicing does depend on `threads`: the same push made with
/// another thread count may choose other deltas (as git's `pack.threads` does).
@Suite struct PackWriterDeterminismTests {
    /// A repository of 3 commits × 200 similar files of about 2 KiB, as loose objects: over 600
    /// objects searched, enough for every thread count below to use all its threads (1 and 4
    /// threads choose different deltas here, so the slices do matter).
    static let repository = Result { () throws -> (TemporaryDirectory, String) in
        let directory = try TemporaryDirectory()
        let path = directory.appending("repo.git")
        try git(["init", "-q", "--bare", path])
        var input = ""
        for commit in 1...3 {
            input += "commit refs/heads/main\n"
            input += "committer C O Mitter <committer@example.com> \(1_700_000_000 + commit) +0000\n"
            input += "data 9\ncommit \(commit)\n\n"
            for file in 0..<200 {
                var content = ""
                for line in 0..<100 {
                    content +=
                        line == (file + commit * 7) % 100 ? "changed \(file) \(commit)\n" : "line \(line) of a file\n"
                }
                input += "M 100644 inline dir\(file % 10)/file\(file).txt\ndata \(content.utf8.count)\n\(content)\n"
            }
        }
        let imported = directory.appending("imported.git")
        try git(["init", "-q", "--bare", imported])
        try git(["-C", imported, "fast-import", "--quiet"], input: Array(input.utf8))
        // Loose objects, so that every object is searched for a delta (fast-import's pack would
        // be reused as it is, with its own deltas).
        let pack = try git(["-C", imported, "pack-objects", "--all", "--stdout", "-q"]).standardOutput
        try git(["-C", path, "unpack-objects", "-q"], input: pack)
        let head = try gitText(["-C", imported, "rev-parse", "main"]).trimmingCharacters(in: .whitespacesAndNewlines)
        try git(["-C", path, "update-ref", "refs/heads/main", head])
        return (directory, path)
    }

    static func pack(threads: Int) throws -> (bytes: [UInt8], statistics: PackWriter.Statistics) {
        let path = try repository.get().1
        let database = try ObjectDatabase(gitDirectory: path)
        let head = try #require(
            ObjectID(try gitText(["-C", path, "rev-parse", "main"]).trimmingCharacters(in: .whitespacesAndNewlines)))
        let writer = try PackWriter(
            database: database, include: [head], exclude: [], options: PackWriter.Options(threads: threads))
        var bytes: [UInt8] = []
        while let chunk = try writer.read() { bytes += chunk }
        return (bytes, writer.statistics)
    }

    @Test(arguments: [1, 2, 4])
    func theSameInputAndOptionsGiveTheSameBytes(threads: Int) throws {
        let first = try Self.pack(threads: threads)
        #expect(first.statistics.objects > 600)
        #expect(first.statistics.deltas > 300)
        #expect(first.statistics.reused == 0)
        for _ in 0..<3 {
            let again = try Self.pack(threads: threads)
            // Compared whole (a failing comparison of two arrays is slow to describe element by element).
            let same = again.bytes == first.bytes
            #expect(same, "threads \(threads): \(again.bytes.count) bytes, first \(first.bytes.count)")
        }
    }
}
