import Foundation
import GitWire
import GitWireCore
import GitWireTestSupport
import Testing

/// A fetched commit whose `tree` line names a blob the repository already has, that blob 64 MiB:
/// git refuses the commit (`error: Object <id> not a tree`, exit 1), and so does gitwire
/// (`object <id> is a blob, not a tree`, exit 128), but it read the whole blob to learn its type,
/// holding 64 MiB and more. The type now comes from the loose object's header or the pack
/// entry's (through its delta bases' headers): the peak stays far below the blob's size.
@Suite("a large local blob named as a tree")
struct HostileLargeLocalTypeTests {
    /// The repository the fetch runs in holds the blob `storage`: `loose`, `packed` (64 MiB
    /// each), or `delta` (a small blob stored as a delta in a pack: its type is its base's).
    @Test(arguments: ["loose", "packed", "delta"])
    func typeFromHeaders(storage: String) throws {
        let work = try TemporaryDirectory(prefix: "gitwire-large-type")
        let store = work.appending("store.git")
        try git(["init", "--quiet", "--bare", "--initial-branch=main", store])
        // Random bytes, which do not compress: the loose object is as large as the blob.
        let file = work.appending("big")
        let size = storage == "delta" ? 64 << 10 : 64 << 20
        try run(["sh", "-c", "head -c \(size) /dev/urandom > '\(file)'"])
        let first = try gitText(["hash-object", "-w", file], in: store)
        // A second blob that differs at its end only: one of the two is stored as a delta.
        try run(["sh", "-c", "echo more >> '\(file)'"])
        let second = try gitText(["hash-object", "-w", file], in: store)
        let entries =
            "100644 blob \(first)\ta\n" + (storage == "delta" ? "100644 blob \(second)\tb\n" : "")
        let tree = try git(["mktree"], in: store, input: Array(entries.utf8)).text
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let parent = try git(
            ["hash-object", "-t", "commit", "-w", "--stdin"], in: store,
            input: HostileObjectTypeTests.commit(tree: tree)
        ).text.trimmingCharacters(in: .whitespacesAndNewlines)
        try git(["update-ref", "refs/heads/main", parent], in: store)
        if storage != "loose" { try git(["repack", "-adq"], in: store) }
        var named = first
        if storage == "delta" {
            // verify-pack: `<id> <type> <size> <packed size> <offset> <depth> <base>` for a delta.
            let index = try FileManager.default.contentsOfDirectory(atPath: "\(store)/objects/pack")
                .first { $0.hasSuffix(".idx") }!
            let listing = try gitText(["verify-pack", "-v", "\(store)/objects/pack/\(index)"])
            let delta = listing.split(separator: "\n").first { line in
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                return fields.count == 7 && (fields[0] == first || fields[0] == second)
            }
            named = try #require(delta).split(separator: " ").first.map(String.init)!
        }
        let commit = try git(
            ["hash-object", "--literally", "-t", "commit", "-w", "--stdin"], in: store,
            input: HostileObjectTypeTests.commit(tree: named, parents: [parent])
        ).text.trimmingCharacters(in: .whitespacesAndNewlines)
        let pack = try git(["pack-objects", "--stdout", "-q"], in: store, input: Array("\(commit)\n".utf8))
            .standardOutput
        let capabilities = "multi_ack_detailed side-band-64k ofs-delta symref=HEAD:refs/heads/main agent=git/2.39.5"
        let advertisement =
            PktLine.data(Array("\(commit) HEAD".utf8) + [0] + Array("\(capabilities)\n".utf8)).encoded
            + PktLine.text("\(commit) refs/heads/main").encoded + PktLine.flush.encoded
        let server = try HostileFetchServer(
            .v0(advertisement: advertisement), then: [.send(sideBandStream(pack))], connections: 2)
        var runs: [MeasuredRun] = []
        for name in ["git", "gitwire"] {
            let local = work.appending("\(name).git")
            // A local clone keeps the objects as they are stored: loose stays loose.
            try git(["clone", "--quiet", "--bare", store, local])
            try git(["-C", local, "config", "remote.origin.url", server.url()])
            let command = name == "git" ? ["git"] : [gitwireExecutable]
            runs.append(
                try measuringPeakMemory(
                    command + ["-C", local, "fetch", "origin", "+refs/heads/main:refs/heads/main"], killAfter: 300))
            #expect(try gitText(["-C", local, "rev-parse", "main"]) == parent, "\(name) moved main")
        }
        _ = server.finish()
        #expect(runs[0].output.status == 1)
        #expect(
            runs[0].output.errorText.contains("error: Object \(named) not a tree\n"), "git: \(runs[0].output.errorText)"
        )
        #expect(runs[1].output.status == 128)
        #expect(
            runs[1].output.errorText.hasSuffix("fatal: object \(named) is a blob, not a tree\n"),
            "gitwire: \(runs[1].output.errorText)")
        #expect(runs[1].peakMemory < peakMemoryBound(48 << 20), "peak \(mebibytes(runs[1].peakMemory))")
    }
}
