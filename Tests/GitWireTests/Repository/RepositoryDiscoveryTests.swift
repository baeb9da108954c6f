import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// Repository discovery compared with git's own (`git rev-parse`) on real layouts: work trees and
/// their subdirectories, `.git` files, linked work trees, bare repositories, `GIT_DIR`,
/// `GIT_CEILING_DIRECTORIES`, the ownership check and `safe.directory`, and bad repositories;
/// and the commands that need a repository (`hash-object -w`, `index-pack --stdin`) finding the
/// one git finds.
@Suite("Repository discovery")
struct RepositoryDiscoveryTests {
    /// A work tree with a commit, a subdirectory, a linked work tree, a repository whose `.git`
    /// is a file, and a bare clone.
    struct Layout {
        let directory: TemporaryDirectory
        var work: String { directory.appending("work") }
        var linked: String { directory.appending("linked") }
        var separate: String { directory.appending("separate") }
        var bare: String { directory.appending("bare.git") }

        init() throws {
            directory = try TemporaryDirectory()
            let work = directory.appending("work")
            try git(["init", "-q", "-b", "main", work])
            try FileManager.default.createDirectory(atPath: "\(work)/sub/deeper", withIntermediateDirectories: true)
            try "x\n".write(toFile: "\(work)/sub/file", atomically: true, encoding: .utf8)
            try git(["add", "."], in: work)
            try git(["commit", "-q", "-m", "one"], in: work)
            try git(["worktree", "add", "-q", "-b", "side", directory.appending("linked")], in: work)
            try git([
                "init", "-q", "--separate-git-dir", directory.appending("store.git"), directory.appending("separate"),
            ])
            try git(["clone", "-q", "--bare", work, directory.appending("bare.git")])
        }
    }

    /// What one side found: the git directory, the common directory and the work tree, or the
    /// error it printed.
    enum Found: CustomStringConvertible {
        case found(String, String, String?)
        case failed(String)

        var description: String {
            switch self {
            case .found(let a, let b, let c): return "found \(a), \(b), \(c ?? "(bare)")"
            case .failed(let text): return "failed: \(text)"
            }
        }
    }

    /// What git finds from `directory`: (git dir, common dir, top level or nil), or its error.
    func gitFinds(from directory: String, environment: [String: String] = [:]) throws -> Found {
        let output = try git(
            ["rev-parse", "--absolute-git-dir", "--git-common-dir", "--is-bare-repository"], in: directory,
            environment: environment, check: false)
        guard output.status == 0 else { return .failed(output.errorText) }
        let lines = output.text.split(separator: "\n").map(String.init)
        var common = lines[1]
        if !common.hasPrefix("/") { common = directory + "/" + common }
        common = URL(fileURLWithPath: common).resolvingSymlinksInPath().path
        var top: String?
        if lines[2] == "false" {
            // Inside a `.git` directory git knows of no work tree either.
            let shown = try git(
                ["rev-parse", "--show-toplevel"], in: directory, environment: environment, check: false)
            if shown.status == 0 { top = shown.text.trimmingCharacters(in: .newlines) }
        }
        return .found(lines[0], common, top)
    }

    func weFind(from directory: String, environment: [String: String] = [:]) -> Found {
        do {
            let location = try RepositoryLocation.discover(
                from: directory, environment: reproducibleGitEnvironment.merging(environment) { $1 })
            let common = URL(fileURLWithPath: location.commonDirectory).resolvingSymlinksInPath().path
            return .found(location.gitDirectory, common, location.workTree)
        } catch {
            return .failed("fatal: \(error)\n")
        }
    }

    func expectSame(from directory: String, environment: [String: String] = [:]) throws {
        let theirs = try gitFinds(from: directory, environment: environment)
        let ours = weFind(from: directory, environment: environment)
        switch (theirs, ours) {
        case (.found(let a0, let a1, let a2), .found(let b0, let b1, let b2)):
            #expect(a0 == b0, "git dir from \(directory)")
            #expect(a1 == b1, "common dir from \(directory)")
            #expect(a2 == b2, "work tree from \(directory)")
        case (.failed(let a), .failed(let b)):
            #expect(a == b, "error from \(directory)")
        default:
            Issue.record("git: \(theirs), gitwire: \(ours), from \(directory)")
        }
    }

    @Test func findsWhatGitFinds() throws {
        let layout = try Layout()
        for directory in [
            layout.work, "\(layout.work)/sub", "\(layout.work)/sub/deeper", "\(layout.work)/.git",
            "\(layout.work)/.git/refs/heads", layout.linked, "\(layout.linked)/sub", layout.separate, layout.bare,
            "\(layout.bare)/objects/pack", "\(layout.bare)/refs",
        ] {
            try expectSame(from: directory)
        }
        // Outside any repository.
        try expectSame(from: layout.directory.path, environment: ["GIT_CEILING_DIRECTORIES": "/tmp"])
    }

    @Test func ceilingDirectoriesStopTheWalk() throws {
        let layout = try Layout()
        for ceiling in [
            layout.work, "\(layout.work)/sub", layout.directory.path, "\(layout.work)/sub:/nowhere", ":\(layout.work)",
        ] {
            try expectSame(from: "\(layout.work)/sub/deeper", environment: ["GIT_CEILING_DIRECTORIES": ceiling])
        }
    }

    @Test func gitDirectoryFromTheEnvironment() throws {
        let layout = try Layout()
        try expectSame(from: "\(layout.work)/sub", environment: ["GIT_DIR": "\(layout.work)/.git"])
        try expectSame(from: layout.directory.path, environment: ["GIT_DIR": "bare.git"])
        try expectSame(from: layout.directory.path, environment: ["GIT_DIR": "separate/.git"])
        try expectSame(from: layout.directory.path, environment: ["GIT_DIR": "nothing-here"])
        try expectSame(from: layout.directory.path, environment: ["GIT_DIR": "work/.git", "GIT_WORK_TREE": "work"])
    }

    @Test func badRepositoriesAreRefusedAsGitRefusesThem() throws {
        let directory = try TemporaryDirectory()
        let garbage = directory.appending("garbage")
        try FileManager.default.createDirectory(atPath: garbage, withIntermediateDirectories: true)
        try "not a gitdir line\n".write(toFile: "\(garbage)/.git", atomically: true, encoding: .utf8)
        try expectSame(from: garbage)
        let empty = directory.appending("emptyfile")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        try "gitdir: \n".write(toFile: "\(empty)/.git", atomically: true, encoding: .utf8)
        try expectSame(from: empty)
        let dangling = directory.appending("dangling")
        try FileManager.default.createDirectory(atPath: dangling, withIntermediateDirectories: true)
        try "gitdir: ../nowhere\n".write(toFile: "\(dangling)/.git", atomically: true, encoding: .utf8)
        try expectSame(from: dangling)
        let future = directory.appending("future")
        try git(["init", "-q", future])
        try git(["config", "core.repositoryformatversion", "2"], in: future)
        try expectSame(from: future)
        let unknown = directory.appending("unknown")
        try git(["init", "-q", unknown])
        try git(["config", "core.repositoryformatversion", "1"], in: unknown)
        try git(["config", "extensions.somethingNew", "true"], in: unknown)
        try expectSame(from: unknown)
    }

    @Test func repositoriesOfAnotherUserNeedSafeDirectory() throws {
        guard geteuid() == 0 else { return }  // only root can give a directory away
        let layout = try Layout()
        // The work tree belongs to someone else: git refuses it, with the command to allow it.
        #expect(chown(layout.work, 4242, 4242) == 0)
        try expectSame(from: "\(layout.work)/sub")
        let global = layout.directory.appending("global.config")
        for value in [layout.work, "*", "/elsewhere"] {
            try "[safe]\n\tdirectory = \(value)\n".write(toFile: global, atomically: true, encoding: .utf8)
            try expectSame(from: "\(layout.work)/sub", environment: ["GIT_CONFIG_GLOBAL": global])
        }
        // An empty value forgets the ones before it.
        try "[safe]\n\tdirectory = *\n\tdirectory =\n".write(toFile: global, atomically: true, encoding: .utf8)
        try expectSame(from: layout.work, environment: ["GIT_CONFIG_GLOBAL": global])
        // Under sudo, root may use the invoking user's repositories.
        try expectSame(from: layout.work, environment: ["SUDO_UID": "4242"])
        // A bare repository, and the repository's own configuration does not count.
        try git(["config", "--file", "\(layout.bare)/config", "safe.directory", "*"])
        #expect(chown(layout.bare, 4242, 4242) == 0)
        try expectSame(from: layout.bare)
        try "[safe]\n\tbareRepository = explicit\n".write(toFile: global, atomically: true, encoding: .utf8)
        try expectSame(from: "\(layout.bare)/refs", environment: ["GIT_CONFIG_GLOBAL": global, "SUDO_UID": "4242"])
    }

    @Test func hashObjectWritesIntoTheRepositoryGitFinds() throws {
        let layout = try Layout()
        let file = layout.directory.appending("content")
        try "some content\n".write(toFile: file, atomically: true, encoding: .utf8)
        let environment = ["GIT_CEILING_DIRECTORIES": layout.directory.path]
        for directory in ["\(layout.work)/sub/deeper", "\(layout.linked)/sub", layout.separate, layout.directory.path] {
            let ours = try gitwire(["hash-object", "-w", file], in: directory, environment: environment)
            let theirs = try git(["hash-object", "-w", file], in: directory, environment: environment, check: false)
            #expect(ours.status == theirs.status, "from \(directory)")
            #expect(ours.text == theirs.text)
            #expect(ours.errorText == theirs.errorText)
            if theirs.status == 0 {
                // git now reads the object we wrote (it was written there by git too: remove
                // git's copy first to be sure it is ours).
                let id = theirs.text.trimmingCharacters(in: .newlines)
                let common = try gitText(["rev-parse", "--git-common-dir"], in: directory)
                let objects = (common.hasPrefix("/") ? common : "\(directory)/\(common)") + "/objects"
                let path = "\(objects)/\(id.prefix(2))/\(id.dropFirst(2))"
                try FileManager.default.removeItem(atPath: path)
                #expect(try gitwire(["hash-object", "-w", file], in: directory, environment: environment).status == 0)
                #expect(try gitText(["cat-file", "-p", id], in: directory) == "some content")
            }
        }
    }

    @Test func indexPackFromStandardInputNeedsARepository() throws {
        let layout = try Layout()
        let pack = try git(["pack-objects", "--all", "--stdout"], in: layout.work, input: [])
        let environment = ["GIT_CEILING_DIRECTORIES": layout.directory.path]
        let outside = layout.directory.path
        let ours = try run(
            [gitwireExecutable, "index-pack", "--stdin"], in: outside, environment: environment,
            input: pack.standardOutput, check: false)
        let theirs = try git(
            ["index-pack", "--stdin"], in: outside, environment: environment, input: pack.standardOutput, check: false)
        #expect(ours.status == theirs.status)
        #expect(ours.errorText == theirs.errorText)
        // Inside a subdirectory of the bare clone, the pack goes into its objects/pack.
        let before = try FileManager.default.contentsOfDirectory(atPath: "\(layout.bare)/objects/pack")
        let inside = try run(
            [gitwireExecutable, "index-pack", "--stdin"], in: "\(layout.bare)/refs", environment: environment,
            input: pack.standardOutput, check: false)
        #expect(inside.status == 0, "\(inside.errorText)")
        let after = try FileManager.default.contentsOfDirectory(atPath: "\(layout.bare)/objects/pack")
        #expect(after.count > before.count || !before.filter { $0.hasSuffix(".idx") }.isEmpty)
        try git(["fsck", "--no-dangling"], in: layout.bare)
    }
}
