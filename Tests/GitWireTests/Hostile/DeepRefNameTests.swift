import Foundation
import GitWireTestSupport
import Testing

@testable import GitWire

/// Ref names as deep as a pkt-line allows (`refs/heads/deep0/a/a/…/b`, 16,000 levels): git clones
/// them into `packed-refs` and fetches into such a clone in a few MiB. gitwire's name-conflict
/// checks kept every directory of every name as a string of its own (a name of n levels holds n
/// prefixes of up to n bytes): a clone of two such names held 0.5 GiB, a fetch into the clone
/// more (a fetch into a clone of eight names of 32,700 levels ran out of memory at 6 GB after
/// 35 s; git: 6 MiB, 0.02 s). Now each directory is looked at through a hash of its prefix,
/// computed in one pass over the name.
@Suite("hostile ref names: deep")
struct DeepRefNameTests {
    static let levels = 16_000
    static let memoryBound = peakMemoryBound(100 << 20)

    static func deepName(_ index: Int) -> String {
        "refs/heads/deep\(index)/" + String(repeating: "a/", count: levels) + "b"
    }

    /// One commit on `main` of `repository`, after the ones it has.
    static func commit(_ index: Int, in repository: String) throws {
        var input = "commit refs/heads/main\n"
        input += "committer C O Mitter <committer@example.com> \(1_700_000_000 + index * 100) +0000\n"
        input += "data 3\nc\(index)\n"
        if index > 1 { input += "from refs/heads/main^0\n" }
        input += "M 100644 inline file.txt\ndata 2\n\(index)\n\n"
        try git(["fast-import", "--quiet"], in: repository, input: Array(input.utf8))
    }

    @Test func cloneAndFetchKeepMemoryBounded() throws {
        let work = try TemporaryDirectory(prefix: "gitwire-deep-refs")
        let server = work.appending("server.git")
        try git(["init", "-q", "--bare", "--initial-branch=main", server])
        try Self.commit(1, in: server)
        let main = try gitText(["rev-parse", "main"], in: server)
        // Into packed-refs (no file system takes a path this long), sorted as git sorts it.
        let names = ([Self.deepName(0), Self.deepName(1), "refs/heads/main"]).sorted {
            $0.utf8.lexicographicallyPrecedes($1.utf8)
        }
        let packed = "# pack-refs with: peeled fully-peeled sorted \n" + names.map { "\(main) \($0)\n" }.joined()
        try Data(packed.utf8).write(to: URL(fileURLWithPath: "\(server)/packed-refs"))
        try FileManager.default.removeItem(atPath: "\(server)/refs/heads/main")
        #expect(try gitText(["for-each-ref", "--format=%(refname)"], in: server).split(separator: "\n").count == 3)

        let ours = work.appending("ours.git")
        let theirs = work.appending("theirs.git")
        let url = "file://\(server)"
        let clone = try measuringPeakMemory(
            [gitwireExecutable, "clone", "--bare", "-q", url, ours], killAfter: 300)
        #expect(clone.output.status == 0, "\(clone.output.errorText)")
        try git(["clone", "--bare", "-q", url, theirs])
        #expect(clone.peakMemory < Self.memoryBound, "clone: peak \(mebibytes(clone.peakMemory))")
        let ourRefs = try String(contentsOfFile: "\(ours)/packed-refs", encoding: .utf8)
        #expect(ourRefs == (try String(contentsOfFile: "\(theirs)/packed-refs", encoding: .utf8)))

        // A new commit on main: the fetch checks it against every ref of the clone.
        try Self.commit(2, in: server)
        let refspecs = ["+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"]
        let fetch = try measuringPeakMemory(
            [gitwireExecutable, "fetch", "-q", url, ours] + refspecs, killAfter: 300)
        #expect(fetch.output.status == 0, "\(fetch.output.errorText)")
        try git(["fetch", "-q", url] + refspecs, in: theirs)
        #expect(fetch.peakMemory < Self.memoryBound, "fetch: peak \(mebibytes(fetch.peakMemory))")
        #expect(try gitText(["for-each-ref"], in: ours) == (try gitText(["for-each-ref"], in: theirs)))
        #expect(try gitText(["rev-parse", "main"], in: ours) == (try gitText(["rev-parse", "main"], in: server)))
    }

    /// The name checks themselves, on names that conflict at the deepest level and at the top.
    @Test func conflictsAreStillFoundInDeepNames() throws {
        let deep = Self.deepName(0)
        let directory = String(deep.dropLast(2))
        #expect(throws: RefUpdateError.self) { try RefStore.checkInitialNames([deep, directory]) }
        #expect(throws: RefUpdateError.self) { try RefStore.checkInitialNames(["refs/heads/deep0", deep]) }
        try RefStore.checkInitialNames([deep, Self.deepName(1), directory + "/c"])

        let work = try TemporaryDirectory(prefix: "gitwire-deep-refs")
        let repository = work.appending("r.git")
        try git(["init", "-q", "--bare", "--initial-branch=main", repository])
        try Self.commit(1, in: repository)
        let main = try #require(
            ObjectID(hex: Array(gitText(["rev-parse", "main"], in: repository).utf8), format: .sha1))
        let store = try RefStore(gitDirectory: repository)
        try store.writePackedRefs([RefRecord(name: deep, id: main, peeled: nil)])
        // A ref where a directory of the packed one is, and one below it: each refused.
        let failures = try store.apply(
            [RefUpdate(name: directory, newID: main), RefUpdate(name: deep + "/c", newID: main)], atomic: false)
        #expect(failures.count == 2)
        #expect(try store.all().map(\.name) == [deep, "refs/heads/main"])
    }
}
