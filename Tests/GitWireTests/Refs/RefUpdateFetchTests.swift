import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// Fetches and clones whose ref updates meet name conflicts, long names, non-commit branches,
/// duplicate and funny names, and more refs than descriptors: gitwire against `git fetch` and
/// `git clone` 2.39 on the same remotes (real `git-upload-pack` over file://, serving
/// repositories shaped to trigger each case), compared by messages, exit status, resulting refs
/// (`git for-each-ref`) and `git fsck`, with no `*.lock` left and later fetches working.
@Suite("ref updates in fetch and clone")
struct RefUpdateFetchTests {
    /// A source repository with `main` at two commits; returns its path.
    static func makeSource(_ directory: TemporaryDirectory, _ name: String = "source") throws -> String {
        let path = directory.appending(name)
        try git(["init", "-q", "-b", "main", path])
        try git(["commit", "-q", "--allow-empty", "-m", "one"], in: path)
        try git(["commit", "-q", "--allow-empty", "-m", "two"], in: path)
        return path
    }

    /// A bare clone made by git, and the same made by gitwire: `(git's, gitwire's)`.
    static func clonePair(_ source: String, _ directory: TemporaryDirectory, _ suffix: String = "") throws -> (
        String, String
    ) {
        let theirs = directory.appending("git\(suffix).git")
        let ours = directory.appending("gitwire\(suffix).git")
        try git(["clone", "-q", "--bare", source, theirs])
        let made = try gitwire(["clone", "-q", "--bare", source, ours])
        #expect(made.status == 0, "\(made.errorText)")
        return (theirs, ours)
    }

    /// Runs `git fetch` in `theirs` and `gitwire fetch` into `ours` with the same arguments;
    /// returns both outputs, standard error with the repository paths replaced by `<repo>`.
    static func fetchBoth(
        _ source: String, _ theirs: String, _ ours: String, _ options: [String] = [], refspecs: [String]
    )
        throws -> (git: ProcessOutput, gitwire: ProcessOutput)
    {
        let gitOutput = try run(
            ["git", "--git-dir=\(theirs)", "fetch"] + options + [source] + refspecs, check: false)
        let ourOutput = try gitwire(["fetch"] + options + [source, ours] + refspecs)
        return (gitOutput, ourOutput)
    }

    static func normalized(_ text: String, _ paths: [String]) -> String {
        var text = text
        for path in paths { text = text.replacingOccurrences(of: path, with: "<repo>") }
        return text
    }

    static func locks(in repository: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: repository)
        var found: [String] = []
        while let name = enumerator?.nextObject() as? String {
            if name.hasSuffix(".lock") { found.append(name) }
        }
        return found
    }

    static func refs(_ repository: String) throws -> String { try gitText(["for-each-ref"], in: repository) }

    /// D5: the remote renamed `x/y` to `x` (and back), the local refs loose or packed: `fetch
    /// --prune` deletes the old ref first and creates the new one, as git does.
    @Test(arguments: [false, true])
    func pruneAfterARenameAcrossADirectory(packed: Bool) throws {
        let directory = try TemporaryDirectory()
        let source = try Self.makeSource(directory)
        try git(["branch", "x/y"], in: source)
        let (theirs, ours) = try Self.clonePair(source, directory)
        let refspec = ["+refs/heads/*:refs/heads/*"]
        for (old, new) in [("x/y", "x"), ("x", "x/y"), ("x/y", "x")] {
            if !packed {
                // Loose: as a fetch leaves them.
                for repository in [theirs, ours] {
                    let value = try gitText(["rev-parse", "refs/heads/\(old)"], in: repository)
                        .trimmingCharacters(in: .whitespacesAndNewlines)
                    try git(["update-ref", "-d", "refs/heads/\(old)"], in: repository)
                    try git(["update-ref", "refs/heads/\(old)", value], in: repository)
                }
            } else {
                for repository in [theirs, ours] { try git(["pack-refs", "--all"], in: repository) }
            }
            try git(["branch", "-m", old, new], in: source)
            let (gitOutput, ourOutput) = try Self.fetchBoth(source, theirs, ours, ["--prune"], refspecs: refspec)
            #expect(gitOutput.status == 0)
            #expect(ourOutput.status == gitOutput.status, "\(ourOutput.errorText)")
            #expect(ourOutput.errorText == gitOutput.errorText)
            #expect(try Self.refs(ours) == Self.refs(theirs))
            #expect(Self.locks(in: ours).isEmpty)
            try git(["fsck", "--no-dangling"], in: ours)
        }
        // And nothing stands in the way of the next fetch.
        try git(["commit", "-q", "--allow-empty", "-m", "three"], in: source)
        let (gitOutput, ourOutput) = try Self.fetchBoth(source, theirs, ours, ["--prune"], refspecs: refspec)
        #expect(ourOutput.status == 0)
        #expect(ourOutput.errorText == gitOutput.errorText)
        #expect(try Self.refs(ours) == Self.refs(theirs))
    }

    /// Writes `source`'s refs as exactly `refs` (name, value), in packed-refs, so the server
    /// advertises names a normal repository cannot hold together (`x` and `x/y`, a name twice,
    /// a name git refuses, a name too long for a file system).
    static func setPackedRefs(_ source: String, _ refs: [(String, String)]) throws {
        let gitDirectory = "\(source)/.git"
        try? FileManager.default.removeItem(atPath: "\(gitDirectory)/refs/heads")
        try? FileManager.default.removeItem(atPath: "\(gitDirectory)/refs/tags")
        try FileManager.default.createDirectory(atPath: "\(gitDirectory)/refs/heads", withIntermediateDirectories: true)
        var text = "# pack-refs with: peeled fully-peeled sorted \n"
        for (name, value) in refs { text += "\(value) \(name)\n" }
        try text.write(toFile: "\(gitDirectory)/packed-refs", atomically: true, encoding: .utf8)
    }

    static func revParse(_ what: String, in path: String) throws -> String {
        try gitText(["rev-parse", what], in: path).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// D6: new refs `x` and `x/y` in one fetch, and a ref named `refs/heads` under
    /// `+refs/*:refs/*`: git creates what it can, says why not for the other, exits 1 and leaves
    /// no lock; gitwire the same, byte for byte.
    @Test func newRefsInConflictFailOneByOne() throws {
        let directory = try TemporaryDirectory()
        let source = try Self.makeSource(directory)
        let (theirs, ours) = try Self.clonePair(source, directory)
        let head = try Self.revParse("HEAD", in: source)
        let parent = try Self.revParse("HEAD~1", in: source)
        try Self.setPackedRefs(
            source,
            [("refs/heads", parent), ("refs/heads/main", head), ("refs/heads/x", head), ("refs/heads/x/y", parent)])
        for refspecs in [["+refs/heads/*:refs/heads/*"], ["+refs/*:refs/*"]] {
            let (gitOutput, ourOutput) = try Self.fetchBoth(source, theirs, ours, refspecs: refspecs)
            #expect(gitOutput.status == 1)
            #expect(ourOutput.status == gitOutput.status)
            #expect(ourOutput.errorText == gitOutput.errorText)
            #expect(try Self.refs(ours) == Self.refs(theirs))
            #expect(Self.locks(in: ours).isEmpty)
            #expect(!FileManager.default.fileExists(atPath: "\(ours)/refs/heads/x/y"))
        }
        // git's own tools still work on the repository.
        try git(["update-ref", "refs/heads/other", head], in: ours)
        try git(["fsck", "--no-dangling"], in: ours)
    }

    /// `--atomic`: the same conflict leaves every ref as it was (git: its summary, `error: …`,
    /// exit 254; gitwire prints no summary, since nothing changed).
    @Test func atomicFetchChangesNothingOnAConflict() throws {
        let directory = try TemporaryDirectory()
        let source = try Self.makeSource(directory)
        let (theirs, ours) = try Self.clonePair(source, directory)
        let head = try Self.revParse("HEAD", in: source)
        let parent = try Self.revParse("HEAD~1", in: source)
        try git(["update-ref", "refs/heads/main", parent], in: theirs)
        try git(["update-ref", "refs/heads/main", parent], in: ours)
        try Self.setPackedRefs(
            source, [("refs/heads/main", head), ("refs/heads/x", head), ("refs/heads/x/y", parent)])
        let before = try Self.refs(ours)
        let (gitOutput, ourOutput) = try Self.fetchBoth(
            source, theirs, ours, ["--atomic"], refspecs: ["+refs/heads/*:refs/heads/*"])
        #expect(gitOutput.status == 254)
        #expect(ourOutput.status == gitOutput.status)
        #expect(gitOutput.errorText.hasSuffix(ourOutput.errorText))
        #expect(ourOutput.errorText.hasPrefix("error: cannot lock ref 'refs/heads/x"))
        #expect(try Self.refs(ours) == before)
        #expect(try Self.refs(theirs) == before)
        #expect(Self.locks(in: ours).isEmpty)
        // Without the conflict, --atomic updates as git does.
        try Self.setPackedRefs(source, [("refs/heads/main", head), ("refs/heads/x", head)])
        let (gitAgain, ourAgain) = try Self.fetchBoth(
            source, theirs, ours, ["--atomic"], refspecs: ["+refs/heads/*:refs/heads/*"])
        #expect(ourAgain.status == 0)
        #expect(ourAgain.errorText == gitAgain.errorText)
        #expect(try Self.refs(ours) == Self.refs(theirs))
    }

    /// D7: more new refs than the descriptor limit: each lock file is closed once written.
    @Test func moreNewRefsThanDescriptors() throws {
        let directory = try TemporaryDirectory()
        let source = try Self.makeSource(directory)
        let (theirs, ours) = try Self.clonePair(source, directory)
        let head = try Self.revParse("HEAD", in: source)
        try Self.setPackedRefs(
            source, [("refs/heads/main", head)] + (1...3000).map { ("refs/heads/b\(String(format: "%05d", $0))", head) }
        )
        let refspec = "'+refs/heads/*:refs/heads/*'"
        for command in [
            "git --git-dir=\(theirs) fetch -q \(source) \(refspec)",
            "\(gitwireExecutable) fetch -q \(source) \(ours) \(refspec)",
        ] {
            let output = try run(["sh", "-c", "ulimit -n 256 && exec \(command)"], check: false)
            #expect(output.status == 0, "\(command): \(output.errorText)")
        }
        #expect(try Self.refs(ours) == Self.refs(theirs))
        #expect(Self.locks(in: ours).isEmpty)
    }

    /// D19 and D18: one ref whose name is too long for the file system, and branches naming a
    /// blob: git fails those refs (`error: cannot lock ref …: File name too long`, `trying to
    /// write non-commit object … to branch …`), updates the others, and exits 1. Refs to commits
    /// come first in git's report.
    @Test func refsGitRefusesFailAlone() throws {
        let directory = try TemporaryDirectory()
        let source = try Self.makeSource(directory)
        let (theirs, ours) = try Self.clonePair(source, directory)
        try "hi\n".write(toFile: "\(source)/f", atomically: true, encoding: .utf8)
        try git(["add", "f"], in: source)
        try git(["commit", "-q", "-m", "three"], in: source)
        let head = try Self.revParse("HEAD", in: source)
        let blob = try Self.revParse("HEAD:f", in: source)
        let tree = try Self.revParse("HEAD^{tree}", in: source)
        let long = "refs/heads/" + String(repeating: "l", count: 300)
        try Self.setPackedRefs(
            source,
            [
                ("refs/heads/blob", blob), ("refs/heads/dup", head), (long, head), ("refs/heads/main", head),
                ("refs/heads/zz", blob), ("refs/other/blob", blob), ("refs/tags/tree", tree),
            ])
        let (gitOutput, ourOutput) = try Self.fetchBoth(source, theirs, ours, refspecs: ["+refs/*:refs/*"])
        #expect(gitOutput.status == 1)
        #expect(ourOutput.status == gitOutput.status)
        #expect(
            Self.normalized(ourOutput.errorText, [ours]) == Self.normalized(gitOutput.errorText, [theirs]),
            "\(ourOutput.errorText)")
        #expect(try Self.refs(ours) == Self.refs(theirs))
        #expect(Self.locks(in: ours).isEmpty)
        try git(["fsck", "--no-dangling"], in: ours)
    }

    /// D12 and duplicates: a clone whose server advertises `x` and `x/y`, `refs/heads` itself
    /// (with `--mirror`), or one name twice: git refuses the clone (`fatal: cannot process …
    /// at the same time`, `fatal: multiple updates for ref … not allowed`) and leaves nothing.
    @Test func cloneRefusesNamesGitRefuses() throws {
        let directory = try TemporaryDirectory()
        let source = try Self.makeSource(directory)
        let head = try Self.revParse("HEAD", in: source)
        let parent = try Self.revParse("HEAD~1", in: source)
        let cases: [([String], [(String, String)])] = [
            (["--bare"], [("refs/heads/main", head), ("refs/heads/x", head), ("refs/heads/x/y", parent)]),
            (["--mirror"], [("refs/heads", parent), ("refs/heads/main", head)]),
            (["--bare"], [("refs/heads/dup", head), ("refs/heads/dup", parent), ("refs/heads/main", head)]),
        ]
        for (index, (options, refs)) in cases.enumerated() {
            try Self.setPackedRefs(source, refs)
            let theirs = directory.appending("git-\(index).git")
            let ours = directory.appending("gitwire-\(index).git")
            let gitOutput = try run(["git", "clone", "-q"] + options + ["--no-local", source, theirs], check: false)
            let ourOutput = try gitwire(["clone", "-q"] + options + [source, ours])
            #expect(gitOutput.status == 128)
            #expect(ourOutput.status == gitOutput.status)
            #expect(ourOutput.errorText == gitOutput.errorText)
            #expect(!FileManager.default.fileExists(atPath: ours))
        }
    }

    /// A remote ref whose local name git refuses: skipped with git's `error: * Ignoring funny
    /// ref '…' locally`, the rest fetched; a duplicate name in a fetch: the first kept, as git.
    @Test func funnyAndDuplicateRefsAsGit() throws {
        let directory = try TemporaryDirectory()
        let source = try Self.makeSource(directory)
        let (theirs, ours) = try Self.clonePair(source, directory)
        let head = try Self.revParse("HEAD", in: source)
        let parent = try Self.revParse("HEAD~1", in: source)
        try Self.setPackedRefs(
            source,
            [
                ("refs/heads/a..b", head), ("refs/heads/dup", parent), ("refs/heads/dup", head),
                ("refs/heads/main", head),
            ])
        let (gitOutput, ourOutput) = try Self.fetchBoth(source, theirs, ours, refspecs: ["+refs/heads/*:refs/heads/*"])
        #expect(ourOutput.status == gitOutput.status)
        #expect(ourOutput.errorText == gitOutput.errorText)
        #expect(try Self.refs(ours) == Self.refs(theirs))
    }
}

extension RefUpdateFetchTests {
    /// A remote ref whose name is not UTF-8 (git takes it as bytes): gitwire, whose names are
    /// text, leaves it out and says so, rather than write it under another name (its bad byte
    /// replaced by U+FFFD), which the next fetch could not match.
    @Test func aNameThatIsNotUTF8IsLeftOutAndSaid() throws {
        let directory = try TemporaryDirectory()
        let source = try Self.makeSource(directory)
        let (theirs, ours) = try Self.clonePair(source, directory)
        try git(["commit", "-q", "--allow-empty", "-m", "three"], in: source)
        try run(["sh", "-c", "cp .git/refs/heads/main \".git/refs/heads/caf$(printf '\\351')\""], in: source)
        let (gitOutput, ourOutput) = try Self.fetchBoth(source, theirs, ours, refspecs: ["+refs/heads/*:refs/heads/*"])
        #expect(gitOutput.status == 0)
        #expect(ourOutput.status == 0)
        #expect(
            ourOutput.errorText.hasPrefix(
                "error: * Ignoring ref 'refs/heads/caf\\xe9' locally: its name is not UTF-8\n"))
        let ourRefs = try Self.refs(ours)
        #expect(!ourRefs.contains("\u{FFFD}"))
        // Every other ref as git has it.
        let theirRefs = try run(
            ["git", "for-each-ref", "--format=%(objectname) %(objecttype)\t%(refname)"], in: theirs)
        let kept = theirRefs.standardOutput.split(separator: 0x0a).filter { !$0.contains(0xe9) }
        #expect(
            ourRefs.trimmingCharacters(in: .newlines)
                == String(decoding: Array(kept.joined(separator: [0x0a])), as: UTF8.self))
        // A second fetch has nothing to do but say it again.
        let again = try gitwire(["fetch", source, ours, "+refs/heads/*:refs/heads/*"])
        #expect(again.status == 0)
        #expect(!again.errorText.contains("From "))
    }
}
