import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// A history fetched from a hostile server can hold a tree nested tens of thousands of levels
/// deep (git's clone takes one 100,000 deep). Pushing it on as a thin pack, gitwire's walk kept
/// the path of every tree it met (`d/d/…/d`) to look for preferred bases, and hashed each path
/// whole: memory and time grew with the square of the depth (12,000 levels: 180 MB; 100,000 would
/// be about 10 GB). Paths longer than `PATH_MAX` are now kept only as what their hash reads, and
/// get no preferred bases. git 2.39.5 pushes 12,000 levels in 170 MB and dies of SIGSEGV in
/// `pack-objects` at 100,000 (its tree walk recurses).
@Suite("push of a deep tree", .serialized)
struct PushDeepTreeTests {
    static let depth = 12_000

    @Test func thinPushOfADeepTreeHoldsLittle() throws {
        let work = try TemporaryDirectory()
        let local = work.appending("local.git")
        try git(["init", "--quiet", "--bare", local])
        let deepPath = String(repeating: "d/", count: Self.depth) + "f"
        let input = """
            commit refs/heads/base
            committer C O Mitter <committer@example.com> 1700000000 +0000
            data 1
            a
            M 100644 inline f
            data 2
            x

            commit refs/heads/main
            committer C O Mitter <committer@example.com> 1700000000 +0000
            data 1
            b
            from refs/heads/base
            M 100644 inline \(deepPath)
            data 2
            y


            """
        try git(["fast-import", "--quiet"], environment: ["GIT_DIR": local], input: Array(input.utf8))
        let server = work.appending("server.git")
        try git(["init", "--quiet", "--bare", server])
        try git(["-C", local, "push", "--quiet", server, "base:main"])
        let run = try measuringPeakMemory(
            [gitwireExecutable, "push", server, "main:main"], environment: ["GIT_DIR": local], killAfter: 600)
        #expect(run.output.status == 0, "\(run.output.errorText)")
        #expect(try gitText(["-C", server, "rev-parse", "main"]) == gitText(["-C", local, "rev-parse", "main"]))
        #expect(run.peakMemory < peakMemoryBound(96 << 20), "peak \(mebibytes(run.peakMemory))")
    }
}
