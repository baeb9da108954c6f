import Foundation
import GitWire
import GitWireCore
import GitWireTestSupport
import Testing

/// A server's pack whose objects name others as a type they are not: a commit's `tree` line
/// naming a blob, a tree entry with a tree's mode naming a blob (or a blob's mode naming a tree),
/// a `parent` naming a tree, a tag whose `type` line says commit for a blob. git 2.39.5's clone
/// refuses each in index-pack (`error: object <id> is a blob, not a tree`, exit 128); gitwire
/// checked only that the objects were there, and cloned a history `git fsck` calls broken. It
/// now refuses them as git does, with git's words, leaving nothing behind.
@Suite("objects named as a type they are not")
struct HostileObjectTypeTests {
    /// One case: the objects to write (type, content made from the ids written before), the
    /// index of the ref's target and of the tag (if any), and the object git names with what it
    /// is and what it was named as.
    struct Case: Sendable, CustomStringConvertible {
        let description: String
        let objects: [(type: String, content: @Sendable ([String]) -> [UInt8])]
        let main: Int
        let tag: Int?
        let culprit: Int
        let isA: String
        let namedAs: String
    }

    static func tree(_ entries: [(mode: String, name: String, id: String)]) -> [UInt8] {
        entries.flatMap { Array("\($0.mode) \($0.name)".utf8) + [0] + hexBytes($0.id) }
    }

    static func commit(tree: String, parents: [String] = []) -> [UInt8] {
        let parentLines = parents.map { "parent \($0)\n" }.joined()
        return Array(
            "tree \(tree)\n\(parentLines)author A <a@example.com> 1 +0000\ncommitter A <a@example.com> 1 +0000\n\nm\n"
                .utf8)
    }

    static let blob: (type: String, content: @Sendable ([String]) -> [UInt8]) = ("blob", { _ in Array("x\n".utf8) })
    static let fileTree: (type: String, content: @Sendable ([String]) -> [UInt8]) = (
        "tree", { tree([("100644", "f", $0[0])]) }
    )

    static let cases: [Case] = [
        Case(
            description: "tree line names a blob", objects: [blob, ("commit", { commit(tree: $0[0]) })],
            main: 1, tag: nil, culprit: 0, isA: "blob", namedAs: "tree"),
        Case(
            description: "tree mode names a blob",
            objects: [blob, ("tree", { tree([("40000", "d", $0[0])]) }), ("commit", { commit(tree: $0[1]) })],
            main: 2, tag: nil, culprit: 0, isA: "blob", namedAs: "tree"),
        Case(
            description: "blob mode names a tree",
            objects: [
                blob, fileTree, ("tree", { tree([("100644", "d", $0[1])]) }), ("commit", { commit(tree: $0[2]) }),
            ],
            main: 3, tag: nil, culprit: 1, isA: "tree", namedAs: "blob"),
        Case(
            description: "parent names a tree",
            objects: [blob, fileTree, ("commit", { commit(tree: $0[1], parents: [$0[1]]) })],
            main: 2, tag: nil, culprit: 1, isA: "tree", namedAs: "commit"),
        Case(
            description: "tag type lies",
            objects: [
                blob, fileTree, ("commit", { commit(tree: $0[1]) }),
                (
                    "tag",
                    { Array("object \($0[0])\ntype commit\ntag v1\ntagger A <a@example.com> 1 +0000\n\nt\n".utf8) }
                ),
            ],
            main: 2, tag: 3, culprit: 0, isA: "blob", namedAs: "commit"),
    ]

    /// A server that advertises the case's refs and sends its objects as they are.
    static func server(_ testCase: Case, in work: TemporaryDirectory) throws -> (HostileFetchServer, [String]) {
        let store = work.appending("store.git")
        try git(["init", "--quiet", "--bare", store])
        var ids: [String] = []
        for object in testCase.objects {
            let output = try git(
                ["hash-object", "--literally", "-t", object.type, "-w", "--stdin"], in: store,
                input: object.content(ids))
            ids.append(output.text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        // Without --revs, pack-objects packs the objects it is given and walks nothing.
        let pack = try git(
            ["pack-objects", "--stdout", "-q"], in: store, input: Array(ids.map { "\($0)\n" }.joined().utf8)
        )
        .standardOutput
        let main = ids[testCase.main]
        let capabilities = "multi_ack_detailed side-band-64k ofs-delta symref=HEAD:refs/heads/main agent=git/2.39.5"
        var advertisement =
            PktLine.data(Array("\(main) HEAD".utf8) + [0] + Array("\(capabilities)\n".utf8)).encoded
            + PktLine.text("\(main) refs/heads/main").encoded
        if let tag = testCase.tag { advertisement += PktLine.text("\(ids[tag]) refs/tags/v1").encoded }
        advertisement += PktLine.flush.encoded
        let server = try HostileFetchServer(
            .v0(advertisement: advertisement), then: [.send(sideBandStream(pack))], connections: 2)
        return (server, ids)
    }

    @Test(arguments: cases)
    func cloneRefusesAsGitDoes(_ testCase: Case) throws {
        let work = try TemporaryDirectory(prefix: "gitwire-object-types")
        let (server, ids) = try Self.server(testCase, in: work)
        let theirs = try git(["clone", "--bare", server.url(), "git-clone"], in: work.path, check: false)
        let ours = try gitwire(["clone", "--bare", server.url(), "our-clone"], in: work.path)
        _ = server.finish()
        let refusal = "object \(ids[testCase.culprit]) is a \(testCase.isA), not a \(testCase.namedAs)\n"
        #expect(theirs.status == 128)
        #expect(theirs.errorText.contains("error: " + refusal), "git: \(theirs.errorText)")
        #expect(ours.status == 128)
        #expect(ours.errorText.hasSuffix("fatal: " + refusal), "gitwire: \(ours.errorText)")
        #expect(!FileManager.default.fileExists(atPath: work.appending("git-clone")))
        #expect(!FileManager.default.fileExists(atPath: work.appending("our-clone")))
    }

    /// A fetch whose one new commit names, as its tree, a blob the repository already has: the
    /// pack holds only the commit. git's check after the fetch reads the blob and refuses it
    /// (`error: Object <id> not a tree`, `did not send all necessary objects`, exit 1); gitwire
    /// took it, its pack check having taken what the repository had as it is.
    @Test func fetchOfATreeLineNamingALocalBlob() throws {
        let work = try TemporaryDirectory(prefix: "gitwire-object-types")
        let store = work.appending("store.git")
        try git(["init", "--quiet", "--bare", "--initial-branch=main", store])
        let input =
            "commit refs/heads/main\ncommitter C <c@example.com> 1 +0000\ndata 2\na\nM 100644 inline f\ndata 2\nx\n\n"
        try git(["fast-import", "--quiet"], environment: ["GIT_DIR": store], input: Array(input.utf8))
        let parent = try gitText(["-C", store, "rev-parse", "main"])
        let blob = try gitText(["-C", store, "rev-parse", "main:f"])
        let commit = try git(
            ["hash-object", "--literally", "-t", "commit", "-w", "--stdin"], in: store,
            input: Self.commit(tree: blob, parents: [parent])
        ).text.trimmingCharacters(in: .whitespacesAndNewlines)
        let pack = try git(["pack-objects", "--stdout", "-q"], in: store, input: Array("\(commit)\n".utf8))
            .standardOutput
        let capabilities = "multi_ack_detailed side-band-64k ofs-delta symref=HEAD:refs/heads/main agent=git/2.39.5"
        let advertisement =
            PktLine.data(Array("\(commit) HEAD".utf8) + [0] + Array("\(capabilities)\n".utf8)).encoded
            + PktLine.text("\(commit) refs/heads/main").encoded + PktLine.flush.encoded
        let server = try HostileFetchServer(
            .v0(advertisement: advertisement), then: [.send(sideBandStream(pack))], connections: 2)
        var runs: [ProcessOutput] = []
        for name in ["git", "gitwire"] {
            let local = work.appending("\(name).git")
            try git(["clone", "--quiet", "--bare", store, local])
            try git(["-C", local, "config", "remote.origin.url", server.url()])
            let arguments = ["fetch", "origin", "+refs/heads/main:refs/heads/main"]
            runs.append(name == "git" ? try git(arguments, in: local, check: false) : try gitwire(arguments, in: local))
            #expect(try gitText(["-C", local, "rev-parse", "main"]) == parent, "\(name) moved main")
        }
        _ = server.finish()
        #expect(runs[0].status == 1)
        #expect(runs[0].errorText.contains("error: Object \(blob) not a tree\n"), "git: \(runs[0].errorText)")
        #expect(runs[1].status == 128)
        #expect(
            runs[1].errorText.hasSuffix("fatal: object \(blob) is a blob, not a tree\n"),
            "gitwire: \(runs[1].errorText)")
    }
}
