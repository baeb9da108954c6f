import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `gitwire clone` without `--bare` against `git clone --no-checkout` on the same remote: the
/// same messages, and every file git writes into `.git` byte for byte (configuration, `HEAD`,
/// `packed-refs`, loose refs, reflogs); then `git checkout` fills the work tree and `git status`
/// finds it clean, and a `git fetch` (or `gitwire fetch`) in it works as in git's clone.
@Suite("clone with a work tree")
struct CloneWorkTreeTests {
    final class Source: @unchecked Sendable {
        let directory: TemporaryDirectory
        let daemon: GitDaemon
        var path: String { directory.appending("served/source") }

        init() throws {
            directory = try TemporaryDirectory(prefix: "gitwire-clonewt")
            let path = directory.appending("served/source")
            try git(["init", "-q", "-b", "trunk", path])
            try FileManager.default.createDirectory(atPath: "\(path)/dir", withIntermediateDirectories: true)
            try "hello\n".write(toFile: "\(path)/dir/file.txt", atomically: true, encoding: .utf8)
            try "#!/bin/sh\n".write(toFile: "\(path)/run.sh", atomically: true, encoding: .utf8)
            try run(["chmod", "+x", "\(path)/run.sh"])
            try run(["ln", "-s", "dir/file.txt", "\(path)/link"])
            try git(["add", "."], in: path)
            try git(["commit", "-q", "-m", "one"], in: path)
            try git(["commit", "-q", "--allow-empty", "-m", "two"], in: path)
            try git(["branch", "side", "HEAD~1"], in: path)
            try git(["tag", "-a", "v1", "-m", "v1", "HEAD~1"], in: path)
            try git(["tag", "light"], in: path)
            try git(["init", "-q", "--bare", "-b", "unborn-branch", directory.appending("served/empty.git")])
            try git(["clone", "-q", "--bare", path, directory.appending("served/detached.git")])
            let head = try gitText(["rev-parse", "trunk~1"], in: path)
            try "\(head)\n".write(
                toFile: directory.appending("served/detached.git/HEAD"), atomically: true, encoding: .utf8)
            daemon = try GitDaemon(basePath: directory.appending("served"))
        }
    }

    static let source = Result { try Source() }

    /// The files of `.git` a clone writes, as text.
    func files(_ gitDirectory: String) throws -> [String: String] {
        var files: [String: String] = [:]
        for name in [
            "config", "HEAD", "packed-refs", "shallow", "description", "info/exclude",
        ] {
            files[name] = try? String(contentsOfFile: "\(gitDirectory)/\(name)", encoding: .utf8)
        }
        for top in ["refs", "logs"] {
            guard let enumerator = FileManager.default.enumerator(atPath: "\(gitDirectory)/\(top)") else { continue }
            for case let file as String in enumerator {
                var isDirectory: ObjCBool = false
                let path = "\(gitDirectory)/\(top)/\(file)"
                if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                    files["\(top)/\(file)"] = try String(contentsOfFile: path, encoding: .utf8)
                }
            }
        }
        return files
    }

    func expectSameClone(
        _ options: [String], url: String, version: Int, name: String, before command: [String] = []
    ) throws {
        let source = try Self.source.get()
        let base = source.directory.appending("clones/\(name)")
        for side in ["git", "ours"] {
            try FileManager.default.createDirectory(atPath: "\(base)/\(side)", withIntermediateDirectories: true)
        }
        let theirs = try git(
            command + ["-c", "protocol.version=\(version)", "clone", "--no-checkout"] + options + [url, "repo"],
            in: "\(base)/git", check: false)
        let ours = try gitwire(
            command + ["clone", "--protocol-version=\(version)"] + options + [url, "repo"], in: "\(base)/ours",
            environment: reproducibleGitEnvironment)
        let context = "clone \(options.joined(separator: " ")) \(url) (v\(version))"
        #expect(ours.status == theirs.status, "\(context): \(ours.errorText)")
        #expect(ours.errorText == theirs.errorText, "\(context)")
        guard theirs.status == 0 else {
            #expect(!FileManager.default.fileExists(atPath: "\(base)/ours/repo"), "\(context)")
            return
        }
        let theirFiles = try files("\(base)/git/repo/.git")
        // A relative local path is recorded absolute, from where each side ran.
        let ourFiles = try files("\(base)/ours/repo/.git").mapValues {
            $0.replacingOccurrences(of: "\(base)/ours/", with: "\(base)/git/")
        }
        for key in Set(theirFiles.keys).union(ourFiles.keys).sorted() {
            #expect(ourFiles[key] == theirFiles[key], "\(context): \(key)")
        }
        try git(["fsck", "--full", "--no-dangling"], in: "\(base)/ours/repo")
        // git checks the work tree out of what we made, and finds it clean.
        let head = try String(contentsOfFile: "\(base)/ours/repo/.git/HEAD", encoding: .utf8)
        if head.hasPrefix("ref: "),
            try git(["rev-parse", "--verify", "-q", "HEAD"], in: "\(base)/ours/repo", check: false).status == 0
        {
            let branch = String(head.dropFirst("ref: refs/heads/".count).dropLast())
            try git(["checkout", "-q", branch], in: "\(base)/ours/repo")
            try git(["checkout", "-q", branch], in: "\(base)/git/repo")
            #expect(try gitText(["status", "--porcelain"], in: "\(base)/ours/repo").isEmpty)
            #expect(
                try gitText(["status", "-b", "--porcelain"], in: "\(base)/ours/repo")
                    == gitText(["status", "-b", "--porcelain"], in: "\(base)/git/repo"))
        }
    }

    @Test(arguments: [0, 2])
    func clonesAsGitCloneNoCheckout(version: Int) throws {
        let source = try Self.source.get()
        let url = source.daemon.url("source")
        for (index, options) in [
            [String](), ["-b", "side"], ["--branch=v1"], ["--branch", "light"], ["--single-branch"],
            ["--single-branch", "-b", "side"], ["--no-tags"], ["-o", "upstream"],
            ["--origin=up", "--no-tags", "-b", "side"],
            ["--depth=1"], ["--depth", "1", "--no-single-branch"], ["-b", "nowhere"], ["-o", "bad..name"], ["-q"],
        ].enumerated() {
            try expectSameClone(options, url: url, version: version, name: "opts-\(version)-\(index)")
        }
        try expectSameClone([], url: source.daemon.url("empty.git"), version: version, name: "empty-\(version)")
        try expectSameClone([], url: source.daemon.url("detached.git"), version: version, name: "detached-\(version)")
        try expectSameClone([], url: "file://\(source.path)", version: version, name: "file-\(version)")
    }

    /// The repository named on the command line is recorded as git's clone records it: a local
    /// repository (found as git finds one: `x`, `x.git`, `x/.git`) by its absolute path, a name
    /// that `url.<base>.insteadOf` rewrites into a local path or file:// URL as given (so that
    /// later fetches rewrite it again); a name with no `:` that is no local repository fails
    /// before anything is made, in git's words.
    @Test func repositoryNamesRecordedAsGitRecordsThem() throws {
        let source = try Self.source.get()
        let served = source.directory.appending("served")
        try git(["clone", "-q", "--bare", source.path, "\(served)/withsuffix.git"])
        // A local path (insteadOf's too) is a local clone for git, which then says "done." (gitwire
        // fetches through upload-pack); -q leaves that out of the comparison.
        for (index, (url, rewrite, options)) in [
            ("srv:source", "url.file://\(served)/.insteadOf=srv:", []),
            ("srv:source", "url.\(served)/.insteadOf=srv:", ["-q"]),
            ("../../../served/source", nil, ["-q"]), ("../../../served/withsuffix", nil, ["-q"]),
            ("../../../served/source/", nil, ["-q"]), ("../../../served/missing", nil, []),
            ("missing", "url.\(served)/.insteadOf=missing", []),
        ].enumerated() {
            try expectSameClone(
                options, url: url, version: 2, name: "names-\(index)", before: rewrite.map { ["-c", $0] } ?? [])
        }
    }

    /// `clone.defaultRemoteName` names the remote unless `-o` does, and is checked as `-o` is.
    @Test func defaultRemoteNameFromTheConfiguration() throws {
        let source = try Self.source.get()
        for (index, (setting, options)) in [
            ("upstream", [String]()), ("upstream", ["-o", "mine"]), ("bad..name", []), ("", []),
        ].enumerated() {
            try expectSameClone(
                options, url: source.daemon.url("source"), version: 2, name: "default-name-\(index)",
                before: ["-c", "clone.defaultRemoteName=\(setting)"])
        }
    }

    /// A fetch in a clone gitwire made is the fetch git makes in its own.
    @Test func aFetchInTheCloneIsGits() throws {
        let source = try Self.source.get()
        let base = source.directory.appending("fetch-in-clone")
        try git(["clone", "-q", "-n", source.daemon.url("source"), "\(base)/theirs"])
        #expect(
            try gitwire(
                ["clone", "-q", source.daemon.url("source"), "\(base)/ours"], environment: reproducibleGitEnvironment
            )
            .status == 0)
        try git(["checkout", "-q", "trunk"], in: "\(base)/ours")
        try git(["checkout", "-q", "trunk"], in: "\(base)/theirs")
        let changed = source.directory.appending("changed")
        try run(["cp", "-a", source.path, changed])
        try git(["commit", "-q", "--allow-empty", "-m", "three"], in: changed)
        try git(["tag", "v2"], in: changed)
        for side in ["theirs", "ours"] { try git(["remote", "set-url", "origin", changed], in: "\(base)/\(side)") }
        let theirFetch = try git(["fetch"], in: "\(base)/theirs")
        let ourFetch = try gitwire(["fetch"], in: "\(base)/ours", environment: reproducibleGitEnvironment)
        #expect(ourFetch.status == 0)
        #expect(ourFetch.errorText == theirFetch.errorText)
        #expect(try gitText(["for-each-ref"], in: "\(base)/ours") == gitText(["for-each-ref"], in: "\(base)/theirs"))
        #expect(try gitText(["status", "-b", "--porcelain"], in: "\(base)/ours").contains("behind 1"))
    }

    /// Usage mistakes exit 129 as git's do; a destination that exists fails as git's.
    @Test func mistakes() throws {
        let source = try Self.source.get()
        let none = try gitwire(["clone"])
        let gitNone = try git(["clone"], check: false)
        #expect(none.status == 129)
        #expect(gitNone.status == 129)
        #expect(none.errorText.hasPrefix("fatal: You must specify a repository to clone.\n\n"))
        let unknown = try gitwire(["clone", "--bogus", source.path])
        #expect(unknown.status == 129)
        let target = source.directory.appending("occupied")
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        try "x".write(toFile: "\(target)/file", atomically: true, encoding: .utf8)
        let ours = try gitwire(["clone", source.path, target])
        let theirs = try git(["clone", source.path, target], check: false)
        #expect(ours.status == 128)
        #expect(ours.errorText == theirs.errorText)
        #expect(try FileManager.default.contentsOfDirectory(atPath: target) == ["file"])
    }
}
