import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// A repository the user was handed (a copied tarball, say) whose loose remote-tracking ref leads
/// out of it: a symbolic link to a file of the user's, or a file holding `ref: ../../<file>`.
/// gitwire's fetch read that file and showed what it holds in its error
/// (`…: unexpected content: 'https://user:hunter2@…'`), a credential in a log. git 2.39.5 shows
/// nothing of it: it follows the link and finds a broken ref, and takes no `../` target as a ref
/// name. gitwire now stops with `broken ref '<name>'` for the link and shows nothing of the file,
/// and leaves the `ref: ../` one out as git does; the file is never written.
@Suite("loose refs that lead out of the repository", .serialized)
struct BrokenRefTests {
    static let secret = "https://user:hunter2@example.com"

    /// A server with one commit on `main`, a clone of it by git whose `refs/remotes/origin/main`
    /// is made loose and leads to `outside` as `kind` says, and a second commit on the server.
    static func setUp(_ work: TemporaryDirectory, kind: String, name: String) throws -> (clone: String, outside: String)
    {
        let server = work.appending("server-\(name).git")
        let source = work.appending("source-\(name)")
        try git(["init", "--quiet", "--bare", "--initial-branch=main", server])
        try git(["init", "--quiet", "--initial-branch=main", source])
        try git(["commit", "--quiet", "--allow-empty", "-m", "one"], in: source)
        try git(["push", "--quiet", server, "main"], in: source)
        let clone = work.appending("clone-\(name)")
        try git(["clone", "--quiet", server, clone])
        try git(["commit", "--quiet", "--allow-empty", "-m", "two"], in: source)
        try git(["push", "--quiet", server, "main"], in: source)
        let outside = work.appending("outside-\(name)")
        try Data("\(secret)\n".utf8).write(to: URL(fileURLWithPath: outside))
        let ref = "\(clone)/.git/refs/remotes/origin/main"
        try FileManager.default.createDirectory(
            atPath: "\(clone)/.git/refs/remotes/origin", withIntermediateDirectories: true)
        if kind == "symlink" {
            try FileManager.default.createSymbolicLink(atPath: ref, withDestinationPath: outside)
        } else {
            try Data("ref: ../../outside-\(name)\n".utf8).write(to: URL(fileURLWithPath: ref))
        }
        return (clone, outside)
    }

    @Test(arguments: ["symlink", "symref"])
    func fetchShowsNothingOfTheFile(kind: String) throws {
        let work = try TemporaryDirectory()
        let theirs = try Self.setUp(work, kind: kind, name: "git")
        let gitRun = try git(["fetch", "origin"], in: theirs.clone, check: false)
        #expect(!(gitRun.text + gitRun.errorText).contains("hunter2"), "git: \(gitRun.errorText)")
        let ours = try Self.setUp(work, kind: kind, name: "gitwire")
        let run = try gitwire(["fetch", "origin"], in: ours.clone, environment: reproducibleGitEnvironment)
        #expect(!(run.text + run.errorText).contains("hunter2"), "gitwire: \(run.errorText)")
        if kind == "symlink" {
            // git 2.39.5: exit 1, `bad object`; gitwire stops before anything is fetched.
            #expect(
                run.errorText == "fatal: broken ref 'refs/remotes/origin/main': not an object id or a symbolic ref\n")
            #expect(run.status == 128)
        } else {
            // A `ref: ../../<file>` ref is left out as git leaves it out, and so is its update:
            // the fetch ends as git's, with `FETCH_HEAD` only.
            #expect(run.status == gitRun.status)
            #expect(
                run.errorText.replacingOccurrences(of: "-gitwire", with: "-git") == gitRun.errorText,
                "gitwire: \(run.errorText)")
        }
        #expect(try String(contentsOfFile: ours.outside, encoding: .utf8) == "\(Self.secret)\n")
    }

    /// A broken ref the command does not name (`refs/heads/bad`, holding `ref: ../../config` or
    /// no object id) is left out of the listing as git leaves it out: fetch and push go on and
    /// end as git's do, where gitwire stopped with `broken ref` (exit 128).
    @Test(arguments: ["ref: ../../config\n", "not an object id\n"])
    func anUnnamedBrokenRefStopsNothing(content: String) throws {
        let work = try TemporaryDirectory()
        var outcomes: [[String]] = []
        for name in ["git", "gitwire"] {
            let (clone, _) = try Self.setUp(work, kind: "symref", name: name)
            let head = try gitText(["rev-parse", "HEAD"], in: clone)
            try Data("\(head)\n".utf8).write(to: URL(fileURLWithPath: "\(clone)/.git/refs/remotes/origin/main"))
            try Data(content.utf8).write(to: URL(fileURLWithPath: "\(clone)/.git/refs/heads/bad"))
            let run: (ProcessOutput) -> [String] = { ["\($0.status)", $0.text, $0.errorText] }
            let fetch =
                name == "git"
                ? try git(["fetch", "-q", "origin"], in: clone, check: false)
                : try gitwire(["fetch", "-q", "origin"], in: clone, environment: reproducibleGitEnvironment)
            let push =
                name == "git"
                ? try git(["push", "-q", "origin", "HEAD:refs/heads/other"], in: clone, check: false)
                : try gitwire(
                    ["push", "-q", "origin", "HEAD:refs/heads/other"], in: clone,
                    environment: reproducibleGitEnvironment)
            let refs = try gitText(["ls-remote", "origin"], in: clone)
            outcomes.append(run(fetch) + run(push) + [refs])
        }
        if content.hasPrefix("ref: ") {
            #expect(outcomes[1] == outcomes[0])
        } else {
            // git 2.39.5's fetch stops at such a ref (`fatal: bad object refs/heads/bad`, exit 1),
            // its push does not; gitwire's fetch leaves the ref out, as git's push does.
            #expect(Array(outcomes[1][3...]) == Array(outcomes[0][3...]))
            #expect(outcomes[0].first == "1")
        }
        #expect(outcomes[1].first == "0")
    }
}
