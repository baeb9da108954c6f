import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// A database opened again for another thread (push's parallel locating and delta search) while
/// a `git repack -ad` runs beside: the packs first opened are gone from `objects/pack`, a new one
/// holds the objects at other offsets. Opening them again by path failed (`open ...: No such
/// file or directory`, and a pack of the same name holding other offsets would have been read
/// with the old index); the reopened readers now share the descriptors the packs were first
/// opened with, as git keeps its packs open, and read the very files that were checked.
@Suite struct PackReopenAfterRepackTests {
    @Test func reopenedAfterARepackReadsThePacksFirstOpened() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-reopen")
        let repository = directory.appending("r.git")
        try git(["init", "-q", "--bare", "--initial-branch=main", repository])
        var input = ""
        for number in 0..<40 {
            input += "commit refs/heads/main\ncommitter C <c@example.com> \(number) +0000\ndata 2\nc\n"
            input += "M 100644 inline f\(number % 7)\ndata \(String(number).count + 6)\nfile \(number)\n\n"
        }
        try git(["fast-import", "--quiet"], environment: ["GIT_DIR": repository], input: Array(input.utf8))
        try git(["repack", "-adq"], in: repository)
        let ids = try gitText(["cat-file", "--batch-all-objects", "--batch-check=%(objectname)"], in: repository)
            .split(separator: "\n").compactMap { ObjectID(String($0)) }
        #expect(ids.count > 80)
        let database = try ObjectDatabase(gitDirectory: repository)
        let packsBefore = try FileManager.default.contentsOfDirectory(atPath: "\(repository)/objects/pack")
        // Between listing the packs and opening them again: a repack that writes one pack of
        // other offsets (no deltas) and removes the old ones.
        let newer = try gitText(["commit-tree", "-p", "main", "-m", "x", "main^{tree}"], in: repository)
        try git(["update-ref", "refs/heads/main", newer], in: repository)
        try git(["repack", "-adfq", "--depth=0", "--window=0"], in: repository)
        let packsAfter = try FileManager.default.contentsOfDirectory(atPath: "\(repository)/objects/pack")
        #expect(Set(packsBefore).isDisjoint(with: packsAfter))
        let reopened = try database.reopened()
        for id in ids {
            let object = try reopened.object(id)
            #expect(object != nil)
            #expect(try object == database.object(id), "\(id)")
            #expect(try reopened.objectType(id) == object?.type)
        }
    }
}
