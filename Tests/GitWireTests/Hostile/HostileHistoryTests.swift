import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// A server that lies about history (issue #19): `shallow` lines nobody asked for, shallow
/// commits that do not exist, peeled values that are not what the tags peel to, a `HEAD` that
/// names something git would never write. Each runs through an ``UploadPackProxy`` around the real
/// `git-upload-pack`, and git 2.39 meets the same bytes side by side.
@Suite("hostile history")
struct HostileHistoryTests {
    /// The server (six commits on `main`, annotated tags `v1` on the fifth and `v2` on the sixth,
    /// a lightweight `light` on the fourth) and a bare clone made before the sixth commit.
    final class History: Sendable {
        static let shared = Result { try History() }

        let directory: TemporaryDirectory
        let server: String
        let localTemplate: String
        /// The commits, oldest first.
        let commits: [String]

        private init() throws {
            directory = try TemporaryDirectory(prefix: "gitwire-history")
            server = directory.appending("server.git")
            localTemplate = directory.appending("local-template.git")
            try git(["init", "-q", "--bare", "--initial-branch=main", server])
            let server = server
            func commit(_ index: Int) throws {
                let content = "version \(index)\n"
                var input = "commit refs/heads/main\n"
                input += "committer C O Mitter <committer@example.com> \(1_700_000_000 + index * 100) +0000\n"
                input += "data 3\nc\(index)\n"
                if index > 1 { input += "from refs/heads/main^0\n" }
                input += "M 100644 inline file.txt\ndata \(content.utf8.count)\n\(content)\n"
                try git(["fast-import", "--quiet"], in: server, input: Array(input.utf8))
            }
            for index in 1...5 { try commit(index) }
            try git(["tag", "-a", "-m", "v1", "v1", "main"], in: server)
            try git(["tag", "light", "main~1"], in: server)
            try git(["clone", "-q", "--bare", "--no-local", server, localTemplate])
            try commit(6)
            try git(["tag", "-a", "-m", "v2", "v2", "main"], in: server)
            commits = try gitText(["rev-list", "--reverse", "main"], in: server).split(separator: "\n").map(
                String.init)
        }

        /// `file://` and the server's path: git clones a plain path without its upload-pack.
        var url: String { "file://\(server)" }

        /// A copy of the local clone, to fetch into.
        func local(in work: TemporaryDirectory, _ name: String) throws -> String {
            let path = work.appending(name)
            try run(["cp", "-a", localTemplate, path])
            return path
        }
    }

    /// `<work>/git/clone.git` and `<work>/ours/clone.git` (not made yet), and their parents: the
    /// clones run in the parents, so that git's messages and gitwire's name the same path.
    static func cloneDirectories(_ work: TemporaryDirectory) throws -> (
        (parent: String, path: String), (parent: String, path: String)
    ) {
        for name in ["git", "ours"] {
            try FileManager.default.createDirectory(atPath: work.appending(name), withIntermediateDirectories: false)
        }
        return (
            (work.appending("git"), work.appending("git/clone.git")),
            (work.appending("ours"), work.appending("ours/clone.git"))
        )
    }

    static let refspecs = ["+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"]
    static let nowhere = "1234567890123456789012345678901234567890"

    /// What a fetch left: its status, standard error, refs, `shallow` file and the commits
    /// `main` shows.
    struct Fetched: Equatable, CustomStringConvertible {
        var status: Int32
        var errors: String
        var refs: String
        var shallow: String?
        var mainHistory: Int

        init(_ output: ProcessOutput, _ repository: String) throws {
            status = output.status
            errors = output.errorText
            refs = try gitText(["for-each-ref"], in: repository)
            shallow = try? String(contentsOfFile: "\(repository)/shallow", encoding: .utf8)
            mainHistory = Int(try gitText(["rev-list", "--count", "main"], in: repository)) ?? -1
        }

        var description: String { "exit \(status), shallow \(shallow ?? "none"), \(errors)\n\(refs)" }
    }

    /// Fetches with git and with gitwire through the same proxy.
    func fetchBoth(_ rules: UploadPackProxy.Rules, version: Int, extra: [String] = []) throws -> (Fetched, Fetched) {
        let history = try History.shared.get()
        let work = try TemporaryDirectory(prefix: "gitwire-history")
        let proxy = try UploadPackProxy(rules, in: work)
        let theirs = try history.local(in: work, "git.git")
        let ours = try history.local(in: work, "ours.git")
        let gitOutput = try git(
            ["-c", "protocol.version=\(version)", "fetch", "--no-tags", "--upload-pack=\(proxy.command)"] + extra
                + [history.url] + Self.refspecs, in: theirs, check: false)
        let ourOutput = try gitwire(
            ["fetch", "--no-tags", "--protocol-version=\(version)", "--upload-pack=\(proxy.command)"] + extra
                + [history.url, ours] + Self.refspecs)
        return (try Fetched(gitOutput, theirs), try Fetched(ourOutput, ours))
    }

    /// Rules that add `shallow <id>` lines the client did not ask for: in the v0 advertisement,
    /// or as a v2 `shallow-info` section before the pack.
    static func unaskedShallow(_ ids: [String], version: Int) -> UploadPackProxy.Rules {
        var rules = UploadPackProxy.Rules()
        let lines = ids.map { "shallow \($0)\n" }
        if version == 2 {
            rules.before = [.init(payload: "packfile\n", packets: ["shallow-info\n"] + lines + ["\u{1}"])]
        } else {
            rules.beforeFlush = ["1": lines]
        }
        return rules
    }

    /// D10: a fetch into a complete repository meets `shallow` lines it never asked for, at the
    /// new commit (which the new `main` and `v2` reach), at an old commit the local refs reach,
    /// and at an object that does not exist. git treats them as the server's own shallow
    /// commits: it never writes them to `shallow`, refuses the refs that reach a new one
    /// (`warning: rejected ... because shallow roots are not allowed to be updated`, exit 0),
    /// and takes the rest. gitwire does the same, message for message.
    @Test(arguments: [0, 2], ["new", "old", "nowhere"])
    func unaskedShallowLinesNeverRewriteHistory(version: Int, at: String) throws {
        let history = try History.shared.get()
        let id = at == "new" ? history.commits[5] : at == "old" ? history.commits[2] : Self.nowhere
        let (theirs, ours) = try fetchBoth(Self.unaskedShallow([id], version: version), version: version)
        #expect(ours == theirs)
        #expect(ours.shallow == nil, "\(ours)")
        #expect(ours.mainHistory == (at == "new" ? 5 : 6))
        if at == "new" {
            #expect(ours.errors.contains("warning: rejected refs/heads/main because shallow roots"), "\(ours)")
        }
    }

    /// D22: a fetch that deepens (`--depth 1`) gets one more `shallow` line, for an object that
    /// does not exist. git writes it to `shallow` (where it would later hide the history of
    /// whatever commit comes to have that id); gitwire writes only commits it has, and otherwise
    /// ends as git does.
    @Test(arguments: [0, 2])
    func shallowLinesNameOnlyCommitsThatAreHere(version: Int) throws {
        var rules = UploadPackProxy.Rules()
        let bogus = "shallow \(Self.nowhere)\n"
        rules.after = [
            .init(pattern: version == 2 ? "^shallow-info\n$" : "^shallow [0-9a-f]{40}\n?$", packets: [bogus])
        ]
        let (theirs, ours) = try fetchBoth(rules, version: version, extra: ["--depth", "1"])
        let history = try History.shared.get()
        #expect(theirs.shallow?.contains(Self.nowhere) == true, "git writes it: \(theirs)")
        #expect(ours.shallow == "\(history.commits[5])\n")
        var expected = theirs
        expected.shallow = theirs.shallow?.replacingOccurrences(of: "\(Self.nowhere)\n", with: "")
        #expect(ours == expected)
    }

    /// A clone of a repository that is itself shallow (a v0 advertisement has `shallow` lines, a
    /// v2 answer a `shallow-info` section): shallow where the server is, as git's; gitwire
    /// used to fail its v0 clone (`remote did not send all necessary objects`).
    @Test(arguments: [0, 2])
    func cloneOfAShallowRepository(version: Int) throws {
        let history = try History.shared.get()
        let work = try TemporaryDirectory(prefix: "gitwire-history")
        let shallowServer = work.appending("shallow-server.git")
        try git(["clone", "-q", "--bare", "--depth=2", "file://\(history.server)", shallowServer])
        let (theirs, ours) = try Self.cloneDirectories(work)
        let gitOutput = try git(
            ["-c", "protocol.version=\(version)", "clone", "--bare", "file://\(shallowServer)", "clone.git"],
            in: theirs.parent)
        let ourOutput = try gitwire(
            ["clone", "--bare", "--protocol-version=\(version)", "file://\(shallowServer)", "clone.git"],
            in: ours.parent)
        #expect(ourOutput.status == 0, "\(ourOutput.errorText)")
        #expect(ourOutput.errorText == gitOutput.errorText)
        for file in ["shallow", "packed-refs", "HEAD"] {
            let ourFile = try String(contentsOfFile: "\(ours.path)/\(file)", encoding: .utf8)
            let gitFile = try String(contentsOfFile: "\(theirs.path)/\(file)", encoding: .utf8)
            if file == "shallow" {
                // git's v2 clone writes the server's shallow commit twice; the same commits.
                #expect(Set(ourFile.split(separator: "\n")) == Set(gitFile.split(separator: "\n")))
                #expect(ourFile.split(separator: "\n").count == Set(ourFile.split(separator: "\n")).count)
            } else {
                #expect(ourFile == gitFile, "\(file)")
            }
        }
        try git(["fsck", "--no-dangling"], in: ours.path)
    }

    /// An `unshallow` line for a commit that is not shallow here: an error, as in git, and
    /// nothing changed.
    @Test func unshallowOfACommitThatIsNotShallow() throws {
        let history = try History.shared.get()
        var rules = UploadPackProxy.Rules()
        rules.before = [
            .init(payload: "packfile\n", packets: ["shallow-info\n", "unshallow \(history.commits[4])\n", "\u{1}"])
        ]
        let (theirs, ours) = try fetchBoth(rules, version: 2)
        #expect(theirs.status == 128)
        #expect(theirs.errors.contains("fatal: no shallow found: unshallow \(history.commits[4])"))
        #expect(ours.status == 128)
        #expect(ours.errors.contains("no shallow found: 'unshallow \(history.commits[4])'"), "\(ours)")
        #expect(ours.refs == theirs.refs)
        #expect(ours.shallow == nil)
    }

    /// An `unshallow` line for the shallow commit of a shallow clone, in an answer whose pack
    /// holds only the new commit on top of it, not the history the line claims: git's
    /// connectivity check finds the parent missing and the fetch fails, `shallow` and the refs
    /// as they were. gitwire used to take the claim, drop the commit from `shallow` and update
    /// `main`: a repository whose history git can no longer read (`git fsck`: missing commit).
    @Test func unshallowWhoseParentsNeverCame() throws {
        let history = try History.shared.get()
        let work = try TemporaryDirectory(prefix: "gitwire-history")
        let template = work.appending("shallow-template.git")
        try git(["clone", "-q", "--bare", "--depth=1", "file://\(history.localTemplate)", template])
        let shallowCommit = history.commits[4]
        var rules = UploadPackProxy.Rules()
        // upload-pack answers a shallow client with a `shallow-info` section of its own.
        rules.after = [.init(pattern: "^shallow-info\n$", packets: ["unshallow \(shallowCommit)\n"])]
        let proxy = try UploadPackProxy(rules, in: work)
        let theirs = work.appending("git.git")
        let ours = work.appending("ours.git")
        try run(["cp", "-a", template, theirs])
        try run(["cp", "-a", template, ours])
        let refspec = "+refs/heads/*:refs/heads/*"
        let gitOutput = try git(
            ["-c", "protocol.version=2", "fetch", "--no-tags", "--upload-pack=\(proxy.command)", history.url, refspec],
            in: theirs, check: false)
        let ourOutput = try gitwire(
            [
                "fetch", "--no-tags", "--protocol-version=2", "--upload-pack=\(proxy.command)", history.url, ours,
                refspec,
            ])
        let git = try Fetched(gitOutput, theirs)
        let gitwire = try Fetched(ourOutput, ours)
        #expect(git.status != 0)
        #expect(git.errors.contains("remote did not send all necessary objects"), "\(git)")
        #expect(git.shallow == "\(shallowCommit)\n")
        #expect(gitwire.status == 128)
        #expect(
            gitwire.errors.hasSuffix(
                "fatal: remote did not send all necessary objects (\(history.commits[3]) is missing)\n"),
            "\(gitwire)")
        #expect(gitwire.shallow == git.shallow, "\(gitwire)")
        #expect(gitwire.refs == git.refs)
        #expect(gitwire.mainHistory == 1)
        try GitWireTestSupport.git(["fsck", "--no-dangling"], in: ours)
    }

    /// D11: the advertisement says `main` peels to its parent and `v1` to an object that does not
    /// exist. `packed-refs` comes out byte for byte as `git clone --bare`/`--mirror` writes it:
    /// `^` lines only after annotated tags, with what the tag objects say.
    @Test(arguments: [0, 2], ["--bare", "--mirror"])
    func peeledValuesComeFromTheTags(version: Int, mode: String) throws {
        let history = try History.shared.get()
        let work = try TemporaryDirectory(prefix: "gitwire-history")
        var rules = UploadPackProxy.Rules()
        let parent = history.commits[4]
        if version == 2 {
            rules.replace = [
                ["(refs/heads/main)\n", "\\1 peeled:\(parent)\n"],
                ["(refs/tags/v1) peeled:[0-9a-f]{40}", "\\1 peeled:\(Self.nowhere)"],
            ]
        } else {
            rules.replace = [["^[0-9a-f]{40} (refs/tags/v1\\^\\{\\})", "\(Self.nowhere) \\1"]]
            rules.beforeFlush = ["1": ["\(parent) refs/heads/main^{}\n"]]
        }
        let proxy = try UploadPackProxy(rules, in: work)
        let theirs = work.appending("git.git")
        let ours = work.appending("ours.git")
        let listing = try gitwire(
            ["ls-remote", "--protocol-version=\(version)", "--upload-pack=\(proxy.command)", history.url])
        #expect(listing.text.contains(Self.nowhere), "the proxy lies: \(listing.text)")
        try git([
            "-c", "protocol.version=\(version)", "clone", "-q", mode, "--upload-pack=\(proxy.command)", history.url,
            theirs,
        ])
        let output = try gitwire([
            "clone", "-q", mode, "--protocol-version=\(version)", "--upload-pack=\(proxy.command)", history.url, ours,
        ])
        #expect(output.status == 0, "\(output.errorText)")
        let packed = try String(contentsOfFile: "\(ours)/packed-refs", encoding: .utf8)
        #expect(packed == (try String(contentsOfFile: "\(theirs)/packed-refs", encoding: .utf8)))
        #expect(!packed.contains(Self.nowhere))
    }

    /// D21: the remote's `HEAD` names something git would never write (`..`, `config`, `HEAD`
    /// itself, a `.lock` name, a control character), a branch that is not there, or a tag. git
    /// ignores what it cannot use and clones; so does gitwire, and its `HEAD` and `packed-refs`
    /// are git's.
    @Test(
        arguments: [0, 2],
        [
            "refs/heads/../../x", "config", "HEAD", "refs/heads/main.lock", "refs/heads/a\u{1}b", "refs/heads/gone",
            "refs/tags/v1", "refs/tags/light",
        ])
    func remoteHeadNamingWhatGitWouldNotWrite(version: Int, target: String) throws {
        let history = try History.shared.get()
        let work = try TemporaryDirectory(prefix: "gitwire-history")
        var rules = UploadPackProxy.Rules()
        rules.replace = [
            version == 2
                ? ["symref-target:refs/heads/main", "symref-target:\(target)"]
                : ["symref=HEAD:refs/heads/main", "symref=HEAD:\(target)"]
        ]
        let proxy = try UploadPackProxy(rules, in: work)
        let (theirs, ours) = try Self.cloneDirectories(work)
        let gitOutput = try git(
            [
                "-c", "protocol.version=\(version)", "clone", "--bare", "--upload-pack=\(proxy.command)",
                history.url, "clone.git",
            ], in: theirs.parent)
        let ourOutput = try gitwire(
            [
                "clone", "--bare", "--protocol-version=\(version)", "--upload-pack=\(proxy.command)", history.url,
                "clone.git",
            ], in: ours.parent)
        #expect(ourOutput.status == 0, "\(ourOutput.errorText)")
        #expect(ourOutput.errorText == gitOutput.errorText)
        for file in ["HEAD", "packed-refs"] {
            let ourFile = try String(contentsOfFile: "\(ours.path)/\(file)", encoding: .utf8)
            let gitFile = try String(contentsOfFile: "\(theirs.path)/\(file)", encoding: .utf8)
            #expect(ourFile == gitFile, "\(file)")
        }
        #expect(!FileManager.default.fileExists(atPath: work.appending("x")))
    }

    /// An empty repository whose unborn `HEAD` (v2 `unborn`) names a branch, a tag, or a name
    /// outside `refs/`: git and gitwire clone it with the same messages (the empty-repository
    /// warning even with `-q`) and point `HEAD` at the branch; a tag leaves the default. Where
    /// git writes `ref: refs/heads/../x` into `HEAD` as told, gitwire keeps the default.
    @Test(arguments: ["refs/heads/ok", "refs/tags/x", "refs/heads/../x"], [false, true])
    func emptyRepositoryWithUnbornHead(target: String, quiet: Bool) throws {
        let work = try TemporaryDirectory(prefix: "gitwire-history")
        let empty = work.appending("empty.git")
        try git(["init", "-q", "--bare", "--initial-branch=main", empty])
        var rules = UploadPackProxy.Rules()
        rules.replace = [["symref-target:refs/heads/main", "symref-target:\(target)"]]
        let proxy = try UploadPackProxy(rules, in: work)
        let (theirs, ours) = try Self.cloneDirectories(work)
        let flags = quiet ? ["-q"] : []
        let gitOutput = try git(
            ["clone"] + flags + ["--bare", "--upload-pack=\(proxy.command)", "file://\(empty)", "clone.git"],
            in: theirs.parent)
        let ourOutput = try gitwire(
            ["clone"] + flags + ["--bare", "--upload-pack=\(proxy.command)", "file://\(empty)", "clone.git"],
            in: ours.parent)
        #expect(ourOutput.status == 0, "\(ourOutput.errorText)")
        #expect(ourOutput.errorText == gitOutput.errorText)
        #expect(ourOutput.errorText.contains("warning: You appear to have cloned an empty repository.\n"))
        let ourHead = try String(contentsOfFile: "\(ours.path)/HEAD", encoding: .utf8)
        let gitHead = try String(contentsOfFile: "\(theirs.path)/HEAD", encoding: .utf8)
        if target.contains("..") {
            #expect(gitHead == "ref: \(target)\n")
            #expect(ourHead == "ref: refs/heads/master\n")
        } else {
            #expect(ourHead == gitHead)
        }
    }
}
