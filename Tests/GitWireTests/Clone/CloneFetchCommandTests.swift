import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `gitwire clone` and `gitwire fetch` against `git clone --bare` and `git fetch` on the same
/// remote: the same messages, the same summary lines, the same refs, and repositories git checks
/// as sound.
@Suite("clone and fetch commands")
struct CloneFetchCommandTests {
    static let refspecs = ["+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"]

    /// A source repository with branches and tags; returns its path.
    func makeSource(in directory: TemporaryDirectory) throws -> String {
        let path = directory.appending("source")
        try git(["init", "-q", "-b", "main", path])
        for index in 1...5 { try git(["commit", "-q", "--allow-empty", "-m", "c\(index)"], in: path) }
        try git(["branch", "topic", "HEAD~2"], in: path)
        try git(["branch", "doomed", "HEAD~1"], in: path)
        try git(["tag", "-a", "v1", "-m", "v1", "HEAD~3"], in: path)
        try git(["tag", "moving", "HEAD~4"], in: path)
        return path
    }

    /// Changes every kind of ref: fast-forward, forced, new, deleted, new tag, moved tag.
    func changeSource(_ path: String) throws {
        try git(["commit", "-q", "--allow-empty", "-m", "c6"], in: path)
        try git(["checkout", "-q", "topic"], in: path)
        try git(["commit", "-q", "--allow-empty", "-m", "rewritten"], in: path)
        try git(["reset", "-q", "--hard", "HEAD~1"], in: path)
        try git(["commit", "-q", "--allow-empty", "-m", "diverged", "--date", "1700000100 +0000"], in: path)
        try git(["checkout", "-q", "main"], in: path)
        try git(["branch", "-f", "topic", "main~3"], in: path)
        try git(["branch", "fresh", "main"], in: path)
        try git(["branch", "-D", "-q", "doomed"], in: path)
        try git(["tag", "-a", "v2", "-m", "v2", "main"], in: path)
        try git(["tag", "-f", "moving", "main"], in: path)
    }

    @Test(arguments: ["0", "2"])
    func cloneThenFetchMatchGit(version: String) throws {
        let directory = try TemporaryDirectory()
        let source = try makeSource(in: directory)
        let url = "file://\(source)"
        try FileManager.default.createDirectory(atPath: directory.appending("git"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            atPath: directory.appending("gitwire"), withIntermediateDirectories: true)
        let gitClone = try git(
            ["-c", "protocol.version=\(version)", "clone", "--bare", url, "repo.git"], in: directory.appending("git"))
        let ourClone = try gitwire(
            ["clone", "--bare", "--protocol-version=\(version)", url, "repo.git"], in: directory.appending("gitwire"))
        #expect(ourClone.status == 0)
        #expect(ourClone.errorText == gitClone.errorText)
        #expect(ourClone.text.isEmpty)
        let theirs = directory.appending("git/repo.git")
        let ours = directory.appending("gitwire/repo.git")
        #expect(try gitText(["for-each-ref"], in: ours) == gitText(["for-each-ref"], in: theirs))
        #expect(
            try gitText(["config", "--list", "--local"], in: ours)
                == gitText(["config", "--list", "--local"], in: theirs))

        try changeSource(source)
        let gitFetch = try git(
            ["-c", "protocol.version=\(version)", "fetch", "--prune", url] + Self.refspecs, in: theirs)
        let ourFetch = try gitwire(["fetch", "--prune", "--protocol-version=\(version)", url, ours] + Self.refspecs)
        #expect(ourFetch.status == 0)
        #expect(ourFetch.errorText == gitFetch.errorText)
        #expect(try gitText(["for-each-ref"], in: ours) == gitText(["for-each-ref"], in: theirs))
        try git(["fsck", "--full", "--strict", "--no-dangling"], in: ours)

        // Nothing new: no output at all, as git.
        let again = try gitwire(["fetch", "--protocol-version=\(version)", url, ours] + Self.refspecs)
        #expect(again.status == 0)
        #expect(again.errorText.isEmpty)
    }

    @Test func quietAndErrorsAreAsGit() throws {
        let directory = try TemporaryDirectory()
        let source = try makeSource(in: directory)
        let quiet = try gitwire(["clone", "--bare", "-q", source, directory.appending("q.git")])
        #expect(quiet.status == 0)
        #expect(quiet.errorText.isEmpty)
        let exists = try gitwire(["clone", "--bare", "-q", source, directory.appending("q.git")])
        #expect(exists.status == 128)
        #expect(
            exists.errorText
                == "fatal: destination path '\(directory.appending("q.git"))' already exists and is not an empty directory.\n"
        )
        let missing = try gitwire(["clone", "--bare", directory.appending("nope"), directory.appending("n.git")])
        #expect(missing.status == 128)
        #expect(!FileManager.default.fileExists(atPath: directory.appending("n.git")))
        // Without --bare: a clone with a work tree (see CloneWorkTreeTests), in git's directory.
        let withWorkTree = try gitwire(["clone", "-q", source, directory.appending("copy")])
        #expect(withWorkTree.status == 0, "\(withWorkTree.errorText)")
        #expect(FileManager.default.fileExists(atPath: directory.appending("copy/.git/HEAD")))
    }

    @Test func defaultDirectoryIsGits() throws {
        let directory = try TemporaryDirectory()
        let source = try makeSource(in: directory)
        try git(["clone", "-q", "--bare", source, directory.appending("named.git")])
        for (argument, expected) in [("named.git", "named.git"), ("named.git/", "named.git"), ("source", "source.git")]
        {
            let work = directory.appending("work-\(expected)-\(argument.count)")
            try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
            let gitResult = try git(["clone", "--bare", "--no-local", "../\(argument)"], in: work, check: false)
            try FileManager.default.removeItem(atPath: "\(work)/\(expected)")
            let ours = try gitwire(["clone", "--bare", "../\(argument)"], in: work)
            #expect(ours.errorText == gitResult.errorText)
            #expect(FileManager.default.fileExists(atPath: "\(work)/\(expected)/HEAD"))
        }
    }

    @Test func shallowCloneWritesTheShallowFileAsGit() throws {
        let directory = try TemporaryDirectory()
        let source = try makeSource(in: directory)
        let url = "file://\(source)"
        try git(["clone", "-q", "--bare", "--depth", "2", url, directory.appending("theirs.git")])
        let ours = directory.appending("ours.git")
        #expect(try gitwire(["clone", "--bare", "-q", "--depth", "2", url, ours]).status == 0)
        #expect(
            try String(contentsOfFile: "\(ours)/shallow", encoding: .utf8)
                == String(contentsOfFile: directory.appending("theirs.git/shallow"), encoding: .utf8))
        #expect(
            try gitText(["log", "--format=%H", "main"], in: ours)
                == gitText(["log", "--format=%H", "main"], in: directory.appending("theirs.git")))
        try git(["fsck", "--no-dangling"], in: ours)
        // Deepen to the whole history.
        #expect(try gitwire(["fetch", "-q", "--unshallow", url, ours] + Self.refspecs).status == 0)
        #expect(!FileManager.default.fileExists(atPath: "\(ours)/shallow"))
        try git(["fsck", "--full", "--no-dangling"], in: ours)
        #expect(try gitText(["rev-list", "--count", "main"], in: ours) == "5")
    }

    /// A fetch that deepens a shallow clone whose refs all have the remote's values still asks
    /// for them (git's `check_exist_and_connected` claims failure when deepening): `--depth`
    /// and `--unshallow` in a clone git made deepen it as git's do, tags that follow included.
    @Test func deepeningWhenEveryRefIsUpToDateIsGits() throws {
        let directory = try TemporaryDirectory()
        let source = try makeSource(in: directory)
        let theirs = directory.appending("theirs")
        let ours = directory.appending("ours")
        try git(["clone", "-q", "--depth", "1", "file://\(source)", theirs])
        try run(["cp", "-a", theirs, ours])
        for arguments in [["--depth", "2"], ["--depth=4"], ["--unshallow"]] {
            let gitResult = try git(["fetch"] + arguments, in: theirs, check: false)
            let ourResult = try gitwire(["fetch"] + arguments, in: ours)
            #expect(ourResult.status == gitResult.status, "\(arguments)")
            #expect(ourResult.errorText == gitResult.errorText, "\(arguments)")
            #expect(
                (try? String(contentsOfFile: "\(ours)/.git/shallow", encoding: .utf8))
                    == (try? String(contentsOfFile: "\(theirs)/.git/shallow", encoding: .utf8)), "\(arguments)")
            #expect(try gitText(["for-each-ref"], in: ours) == gitText(["for-each-ref"], in: theirs), "\(arguments)")
            #expect(
                try gitText(["rev-list", "--count", "HEAD"], in: ours)
                    == gitText(["rev-list", "--count", "HEAD"], in: theirs), "\(arguments)")
            try git(["fsck", "--full", "--no-dangling"], in: ours)
        }
    }

    @Test func partialCloneIsMarkedAsGitMarksIt() throws {
        let directory = try TemporaryDirectory()
        let source = try makeSource(in: directory)
        try "content\n".write(toFile: "\(source)/file.txt", atomically: true, encoding: .utf8)
        try git(["add", "file.txt"], in: source)
        try git(["commit", "-q", "-m", "with a blob"], in: source)
        try git(["config", "uploadpack.allowFilter", "true"], in: source)
        let url = "file://\(source)"
        try git(["clone", "-q", "--bare", "--filter=blob:none", url, directory.appending("theirs.git")])
        let ours = directory.appending("ours.git")
        #expect(try gitwire(["clone", "--bare", "-q", "--filter=blob:none", url, ours]).status == 0)
        #expect(
            try gitText(["config", "--list", "--local"], in: ours)
                == gitText(["config", "--list", "--local"], in: directory.appending("theirs.git")))
        let promisors = try FileManager.default.contentsOfDirectory(atPath: "\(ours)/objects/pack").filter {
            $0.hasSuffix(".promisor")
        }
        #expect(promisors.count == 1)
        let theirPromisor = try FileManager.default.contentsOfDirectory(
            atPath: directory.appending("theirs.git/objects/pack")
        )
        .first { $0.hasSuffix(".promisor") }!
        #expect(
            try String(contentsOfFile: "\(ours)/objects/pack/\(promisors[0])", encoding: .utf8)
                == String(
                    contentsOfFile: directory.appending("theirs.git/objects/pack/\(theirPromisor)"), encoding: .utf8))
        // git fetches the missing blob lazily from the promisor remote.
        #expect(try gitText(["cat-file", "-p", "main:file.txt"], in: ours) == "content")
    }
}
