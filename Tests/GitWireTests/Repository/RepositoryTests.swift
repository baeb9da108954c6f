import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// Repositories gitwire creates and changes are repositories git reads as its own, byte for byte
/// where git writes the same files.
@Suite("Local repositories")
struct RepositoryTests {
    /// A source repository with branches and annotated and lightweight tags, made by git.
    func source(in directory: TemporaryDirectory) throws -> (path: String, refs: [RefRecord]) {
        let path = directory.appending("source")
        try git(["init", "-q", "-b", "main", path])
        try git(["commit", "-q", "--allow-empty", "-m", "one"], in: path)
        try git(["commit", "-q", "--allow-empty", "-m", "two"], in: path)
        try git(["branch", "topic", "HEAD~1"], in: path)
        try git(["tag", "-a", "v1", "-m", "tag", "HEAD~1"], in: path)
        try git(["tag", "light", "HEAD"], in: path)
        let listing = try gitText(["for-each-ref", "--format=%(objectname) %(refname) %(*objectname)"], in: path)
        let refs = listing.split(separator: "\n").map { line -> RefRecord in
            let parts = line.split(separator: " ", omittingEmptySubsequences: false)
            return RefRecord(
                name: String(parts[1]), id: ObjectID(String(parts[0]))!, peeled: ObjectID(String(parts[2])))
        }
        return (path, refs)
    }

    @Test func aNewBareRepositoryWithPackedRefsIsWhatGitCloneWrites() throws {
        let directory = try TemporaryDirectory()
        let (sourcePath, refs) = try source(in: directory)
        let url = sourcePath
        let config = GitConfig([GitConfig.bareCore, GitConfig.Section("remote", "origin", [("url", url)])])
        let repository = try Repository.create(
            at: directory.appending("ours.git"), config: config, headTarget: "refs/heads/main")
        try repository.refs.writePackedRefs(refs)
        try git(["clone", "-q", "--bare", "--no-local", sourcePath, directory.appending("git.git")])
        for file in ["config", "packed-refs", "HEAD", "description", "info/exclude"] {
            let ours = try String(contentsOfFile: directory.appending("ours.git/\(file)"), encoding: .utf8)
            let theirs = try String(contentsOfFile: directory.appending("git.git/\(file)"), encoding: .utf8)
            #expect(ours == theirs, "\(file) differs")
        }
        #expect(try repository.refs.all() == refs.map { RefRecord(name: $0.name, id: $0.id, peeled: $0.peeled) })
        #expect(try repository.refs.head() == .symbolic("refs/heads/main"))
    }

    @Test func updatesAreLooseRefsGitReads() throws {
        let directory = try TemporaryDirectory()
        let (sourcePath, refs) = try source(in: directory)
        let bare = directory.appending("copy.git")
        try git(["clone", "-q", "--bare", sourcePath, bare])
        let repository = try Repository(gitDirectory: bare)
        let main = try #require(refs.first { $0.name == "refs/heads/main" })
        let topic = try #require(refs.first { $0.name == "refs/heads/topic" })
        try repository.refs.apply([
            RefUpdate(name: "refs/heads/new/branch", newID: main.id),
            RefUpdate(name: "refs/heads/topic", newID: main.id, expectedOldID: topic.id),
            RefUpdate(name: "refs/tags/light", newID: nil),
        ])
        let listing = try gitText(["for-each-ref", "--format=%(objectname) %(refname)"], in: bare)
        #expect(listing.contains("\(main.id.hex) refs/heads/new/branch"))
        #expect(listing.contains("\(main.id.hex) refs/heads/topic"))
        #expect(!listing.contains("refs/tags/light"))
        #expect(try repository.refs.resolve("refs/heads/topic") == main.id)
        #expect(try repository.refs.resolve("refs/tags/light") == nil)
        try git(["fsck", "--full", "--strict"], in: bare)
        // No lock file is left behind.
        let leftovers = try run(["find", bare, "-name", "*.lock"]).text
        #expect(leftovers.isEmpty)
    }

    @Test func aHeldLockChangesNothing() throws {
        let directory = try TemporaryDirectory()
        let (sourcePath, refs) = try source(in: directory)
        let bare = directory.appending("copy.git")
        try git(["clone", "-q", "--bare", sourcePath, bare])
        let repository = try Repository(gitDirectory: bare)
        let main = try #require(refs.first { $0.name == "refs/heads/main" })
        let before = try gitText(["for-each-ref"], in: bare)
        try git(["update-ref", "refs/heads/held", main.id.hex], in: bare)
        #expect(FileManager.default.createFile(atPath: "\(bare)/refs/heads/topic.lock", contents: Data()))
        let error = try #require(throws: RefUpdateError.self) {
            try repository.refs.apply([
                RefUpdate(name: "refs/heads/aaa", newID: main.id),
                RefUpdate(name: "refs/heads/topic", newID: main.id),
            ])
        }
        #expect(error.reason == .lockHeld("\(bare)/refs/heads/topic.lock"))
        #expect(
            error.description.hasPrefix(
                "cannot lock ref 'refs/heads/topic': Unable to create '\(bare)/refs/heads/topic.lock': File exists."))
        try FileManager.default.removeItem(atPath: "\(bare)/refs/heads/topic.lock")
        try git(["update-ref", "-d", "refs/heads/held"], in: bare)
        #expect(try gitText(["for-each-ref"], in: bare) == before)
        #expect(!FileManager.default.fileExists(atPath: "\(bare)/refs/heads/aaa.lock"))
    }

    @Test func refNamesGitRefusesAreRefused() throws {
        let directory = try TemporaryDirectory()
        let repository = try Repository.create(
            at: directory.appending("x.git"), config: GitConfig([GitConfig.bareCore]))
        for name in ["refs/heads/../../config", "refs/heads/a..b", "HEAD", "refs/heads/x.lock", "refs/heads/a\u{1}"] {
            #expect(throws: RefUpdateError(name: name, reason: .badName)) {
                try repository.refs.apply([RefUpdate(name: name, newID: .zero(.sha1))])
            }
        }
        #expect(throws: RepositoryError.destinationExists(directory.appending("x.git"))) {
            try Repository.create(at: directory.appending("x.git"), config: GitConfig([GitConfig.bareCore]))
        }
    }

    @Test func configValuesAreQuotedAsGitQuotesThem() throws {
        let directory = try TemporaryDirectory()
        let values = ["plain", " leading", "trailing ", "semi;colon", "hash#", "quote\"d", "back\\slash", "tab\there"]
        let config = GitConfig([
            GitConfig.Section("test", "sub \"x\"", values.enumerated().map { ("key\($0.offset)", $0.element) })
        ])
        let path = directory.appending("config")
        try Data(config.text).write(to: URL(fileURLWithPath: path))
        for (index, value) in values.enumerated() {
            #expect(try gitText(["config", "--file", path, "test.sub \"x\".key\(index)"]) == value)
        }
    }
}
