import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// A SHA-256 remote (issue 22) works wherever a SHA-1 remote does: `ls-remote` prints what
/// `git ls-remote` prints, `clone --bare` makes what `git clone --bare` makes (configuration,
/// `HEAD`, `packed-refs`, the pack with the `.idx` `git index-pack --object-format=sha256`
/// writes, `git fsck --full --strict` clean), and `fetch` updates it as `git fetch` does, over
/// `git daemon`, `git-upload-pack` (file://), `git http-backend` and sshd, protocol v0 and v2.
@Suite("SHA-256 remotes", .serialized)
struct SHA256RemoteTests {
    static let http = Result { try HTTPServer(root: SHA256Repositories.shared.basePath) }
    static let ssh = Result { try SSHServer() }

    enum Transport: String, CaseIterable, Sendable {
        case git, file, http, ssh

        /// The URL of repository `name`, and the environment git and gitwire need to reach it.
        func location(_ name: String) throws -> (url: String, environment: [String: String]) {
            let repositories = SHA256Repositories.shared
            switch self {
            case .git: return (repositories.daemon.url(name), [:])
            case .file: return ("file://\(repositories.path(name))", [:])
            case .http: return (try SHA256RemoteTests.http.get().url("/git/\(name)"), [:])
            case .ssh:
                let server = try SHA256RemoteTests.ssh.get()
                return (server.url(repositories.path(name)), server.environment)
            }
        }
    }

    struct LsRemoteCase: CustomTestStringConvertible, Sendable {
        var transport: Transport
        var repository: String
        var version: Int
        var arguments: [String]
        var testDescription: String {
            "\(transport) v\(version) \(repository) \(arguments.joined(separator: " "))"
        }
    }

    static let lsRemoteCases: [LsRemoteCase] = {
        var cases: [LsRemoteCase] = []
        let flagSets: [[String]] = [
            [], ["--symref"], ["--heads"], ["--tags"], ["--refs"], ["--symref", "--refs"], ["--exit-code"],
            ["-t", "--refs", "--symref"], ["--get-url"],
        ]
        let patternSets: [[String]] = [
            ["main"], ["v1.1*"], ["refs/heads/*"], ["HEAD"], ["tag-of-*"], ["light-1?", "branch-[0-3]"],
            ["--exit-code", "no-such-ref"], ["--symref", "--heads", "branch-1*"],
        ]
        for version in [0, 1, 2] {
            for repository in SHA256Repositories.names {
                for flags in flagSets {
                    cases.append(
                        LsRemoteCase(transport: .git, repository: repository, version: version, arguments: flags))
                }
            }
            for patterns in patternSets {
                cases.append(
                    LsRemoteCase(transport: .git, repository: "many.git", version: version, arguments: patterns))
            }
        }
        for transport in [Transport.file, .http, .ssh] {
            for version in [0, 2] {
                for repository in SHA256Repositories.names {
                    cases.append(
                        LsRemoteCase(
                            transport: transport, repository: repository, version: version, arguments: ["--symref"]))
                }
                cases.append(
                    LsRemoteCase(
                        transport: transport, repository: "many.git", version: version, arguments: ["--tags", "v1.1*"]))
                cases.append(
                    LsRemoteCase(
                        transport: transport, repository: "small.git", version: version, arguments: ["--get-url"]))
            }
        }
        return cases
    }()

    @Test(arguments: lsRemoteCases)
    func lsRemoteMatchesGit(_ testCase: LsRemoteCase) throws {
        let (url, environment) = try testCase.transport.location(testCase.repository)
        let options = testCase.arguments.filter { $0.hasPrefix("-") }
        let patterns = testCase.arguments.filter { !$0.hasPrefix("-") }
        let expected = try git(
            ["-c", "protocol.version=\(testCase.version)", "ls-remote"] + options + [url] + patterns,
            environment: environment, check: false)
        let actual = try gitwire(
            ["ls-remote", "--protocol-version=\(testCase.version)"] + options + [url] + patterns,
            environment: environment)
        #expect(actual.status == expected.status, "\(actual.errorText)")
        if options.contains("--get-url") {
            // git prints the URL with its user information (`root@` of the ssh URL); gitwire,
            // by its credential rule, shows every URL without it.
            #expect(actual.text == RemoteURL.withoutCredentials(String(expected.text.dropLast())) + "\n")
        } else {
            #expect(actual.text == expected.text)
        }
        #expect(actual.errorText == expected.errorText)
        if testCase.repository == "small.git" && options.isEmpty {
            // The ids really are SHA-256 ones.
            #expect(actual.text.split(separator: "\n").allSatisfy { $0.split(separator: "\t")[0].count == 64 })
        }
    }

    struct CloneCase: CustomTestStringConvertible, Sendable {
        var transport: Transport
        var repository: String
        var version: Int
        var testDescription: String { "\(transport) v\(version) \(repository)" }
    }

    static let cloneCases: [CloneCase] = Transport.allCases.flatMap { transport in
        [0, 2].flatMap { version in
            SHA256Repositories.names.filter { transport == .git || $0 != "many.git" }.map {
                CloneCase(transport: transport, repository: $0, version: version)
            }
        }
    }

    /// What a bare clone holds that must be as git's: configuration, `HEAD`, `packed-refs` (with
    /// `packedRefs`), the `shallow` file, the refs.
    ///
    /// Two differences from git that are not about object formats (SHA-1 clones have them too)
    /// are left out: of an empty remote gitwire writes a `packed-refs` with only its header where
    /// git writes none, and a shallow clone's followed tags go into `packed-refs` where git writes
    /// them as loose refs (`for-each-ref` is the same).
    static func cloneState(_ path: String, packedRefs: Bool = true) throws -> [String] {
        func file(_ name: String) -> String { (try? String(contentsOfFile: "\(path)/\(name)", encoding: .utf8)) ?? "-" }
        var packed = file("packed-refs")
        if packed == "# pack-refs with: peeled fully-peeled sorted \n" { packed = "-" }
        return [
            file("config").replacingOccurrences(of: path, with: "<dir>"), file("HEAD"), packedRefs ? packed : "",
            file("shallow"), try gitText(["for-each-ref"], in: path),
        ]
    }

    @Test(arguments: cloneCases)
    func cloneIsWhatGitClones(_ testCase: CloneCase) throws {
        let (url, environment) = try testCase.transport.location(testCase.repository)
        let directory = try TemporaryDirectory()
        let ours = directory.appending("ours.git")
        let theirs = directory.appending("theirs.git")
        try git(
            ["-c", "protocol.version=\(testCase.version)", "clone", "-q", "--bare", url, theirs],
            environment: environment)
        let cloned = try gitwire(
            ["clone", "-q", "--bare", "--protocol-version=\(testCase.version)", url, ours], environment: environment)
        #expect(cloned.status == 0, "\(cloned.errorText)")
        #expect(try Self.cloneState(ours) == Self.cloneState(theirs))
        let packs = try FileManager.default.contentsOfDirectory(atPath: "\(ours)/objects/pack").filter {
            $0.hasSuffix(".pack")
        }
        if testCase.repository == "empty.git" || testCase.repository == "unborn.git" && testCase.version == 0 {
            #expect(packs.isEmpty || testCase.repository == "unborn.git")
        }
        for pack in packs {
            // The index is byte for byte the one git's index-pack writes for the same pack.
            let path = "\(ours)/objects/pack/\(pack)"
            try git(["index-pack", "--object-format=sha256", "-o", directory.appending("git.idx"), path])
            #expect(
                FileManager.default.contents(atPath: directory.appending("git.idx"))
                    == FileManager.default.contents(atPath: String(path.dropLast(5)) + ".idx"))
        }
        try git(["fsck", "--full", "--strict", "--no-dangling"], in: ours)
        // git goes on using it (a remote without a HEAD commit gives git nothing to fetch by default).
        if testCase.repository != "empty.git" && testCase.repository != "unborn.git" {
            try git(
                ["-c", "protocol.version=\(testCase.version)", "fetch", "-q", url], in: ours, environment: environment)
        }
    }

    /// New commits, a moved branch, a new tag and a deleted branch on the server: the fetch
    /// reports and changes what `git fetch --prune` does, and the repository stays clean.
    @Test(arguments: Transport.allCases, [0, 2])
    func fetchIsWhatGitFetches(transport: Transport, version: Int) throws {
        let directory = try TemporaryDirectory()
        let name = "fetch-\(transport)-\(version)-\(UInt32.random(in: 0...UInt32.max)).git"
        let server = "\(SHA256Repositories.shared.basePath)/\(name)"
        try SHA256Repositories.makeSmall(at: server)
        defer { try? FileManager.default.removeItem(atPath: server) }
        let (url, environment) = try transport.location(name)
        let ours = directory.appending("ours.git")
        let theirs = directory.appending("theirs.git")
        try git(["clone", "-q", "--bare", url, theirs], environment: environment)
        #expect(try gitwire(["clone", "-q", "--bare", url, ours], environment: environment).status == 0)

        var input = "commit refs/heads/main\ncommitter C O Mitter <committer@example.com> 1700300000 +0000\n"
        input += "data 5\nmore\nfrom refs/heads/main^0\nM 100644 inline new.txt\ndata 4\nnew\n\n"
        input += "reset refs/heads/topic\nfrom refs/heads/main\n\n"
        try git(["fast-import", "--quiet"], in: server, input: Array(input.utf8))
        try git(["tag", "-a", "-m", "later", "v2", "main"], in: server)
        try git(["branch", "-D", "feature"], in: server)

        let refspecs = ["+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"]
        let expected = try git(
            ["-c", "protocol.version=\(version)", "fetch", "--prune", url] + refspecs, in: theirs,
            environment: environment)
        let actual = try gitwire(
            ["fetch", "--prune", "--protocol-version=\(version)", url, ours] + refspecs, environment: environment)
        #expect(actual.status == 0, "\(actual.errorText)")
        // Over ssh too: the `From` line leaves the user out, as git's does.
        #expect(actual.errorText == expected.errorText)
        #expect(try gitText(["for-each-ref"], in: ours) == gitText(["for-each-ref"], in: theirs))
        try git(["fsck", "--full", "--strict", "--no-dangling"], in: ours)
        for pack in try FileManager.default.contentsOfDirectory(atPath: "\(ours)/objects/pack")
        where pack.hasSuffix(".pack") {
            let path = "\(ours)/objects/pack/\(pack)"
            try git(["index-pack", "--object-format=sha256", "-o", directory.appending("git.idx"), path])
            #expect(
                FileManager.default.contents(atPath: directory.appending("git.idx"))
                    == FileManager.default.contents(atPath: String(path.dropLast(5)) + ".idx"))
            try FileManager.default.removeItem(atPath: directory.appending("git.idx"))
        }
    }

    /// A clone with a work tree (what `git clone --no-checkout` makes) of a SHA-256 remote, then
    /// `fetch` with no arguments inside it: configuration (`extensions.objectformat` before the
    /// tracking branch), refs, `HEAD`, reflogs, `FETCH_HEAD` and the report are git's.
    @Test(arguments: [0, 2])
    func workTreeCloneAndFetchInItAreGits(version: Int) throws {
        let directory = try TemporaryDirectory()
        let name = "worktree-\(version)-\(UInt32.random(in: 0...UInt32.max)).git"
        let server = "\(SHA256Repositories.shared.basePath)/\(name)"
        try SHA256Repositories.makeSmall(at: server)
        defer { try? FileManager.default.removeItem(atPath: server) }
        let (url, _) = try Transport.git.location(name)
        let ours = directory.appending("ours")
        let theirs = directory.appending("theirs")
        try git(["-c", "protocol.version=\(version)", "clone", "-q", "--no-checkout", url, theirs])
        let cloned = try gitwire(
            ["clone", "-q", "--protocol-version=\(version)", url, ours], environment: reproducibleGitEnvironment)
        #expect(cloned.status == 0, "\(cloned.errorText)")
        func state(_ path: String) throws -> [String] {
            func file(_ name: String) -> String {
                (try? String(contentsOfFile: "\(path)/.git/\(name)", encoding: .utf8)) ?? "-"
            }
            return [
                file("config"), file("HEAD"), file("FETCH_HEAD"), file("logs/HEAD"),
                file("logs/refs/remotes/origin/main"),
                try gitText(["for-each-ref"], in: path),
            ]
        }
        #expect(try state(ours) == state(theirs))
        var input = "commit refs/heads/main\ncommitter C O Mitter <committer@example.com> 1700300000 +0000\n"
        input += "data 5\nmore\nfrom refs/heads/main^0\nM 100644 inline new.txt\ndata 4\nnew\n\n"
        try git(["fast-import", "--quiet"], in: server, input: Array(input.utf8))
        let expected = try git(["-c", "protocol.version=\(version)", "fetch"], in: theirs)
        let actual = try gitwire(
            ["fetch", "--protocol-version=\(version)"], in: ours, environment: reproducibleGitEnvironment)
        #expect(actual.status == 0, "\(actual.errorText)")
        #expect(actual.errorText == expected.errorText)
        #expect(try state(ours) == state(theirs))
        #expect(try gitText(["rev-parse", "refs/remotes/origin/main"], in: ours).count == 64)
        try git(["fsck", "--full", "--strict", "--no-dangling"], in: ours)
    }

    /// A shallow clone and its deepening: `shallow` lines and acknowledgments carry SHA-256 ids.
    /// (The deepening fetch takes `main` under a new name: gitwire, for SHA-1 too, does not yet
    /// deepen refs that are already up to date, as `git fetch --depth` does.)
    @Test(arguments: [0, 2])
    func shallowCloneAndDeepenAreWhatGitMakes(version: Int) throws {
        let (url, _) = try Transport.git.location("small.git")
        let directory = try TemporaryDirectory()
        let ours = directory.appending("ours.git")
        let theirs = directory.appending("theirs.git")
        try git(["-c", "protocol.version=\(version)", "clone", "-q", "--bare", "--depth=2", url, theirs])
        let cloned = try gitwire(["clone", "-q", "--bare", "--depth=2", "--protocol-version=\(version)", url, ours])
        #expect(cloned.status == 0, "\(cloned.errorText)")
        #expect(try Self.cloneState(ours, packedRefs: false) == Self.cloneState(theirs, packedRefs: false))
        #expect(try String(contentsOfFile: "\(ours)/shallow", encoding: .utf8).count == 65)
        try git(
            [
                "-c", "protocol.version=\(version)", "fetch", "-q", "--depth=5", url,
                "refs/heads/main:refs/heads/deeper",
            ], in: theirs)
        let deepened = try gitwire(
            [
                "fetch", "-q", "--depth=5", "--protocol-version=\(version)", url, ours,
                "refs/heads/main:refs/heads/deeper",
            ])
        #expect(deepened.status == 0, "\(deepened.errorText)")
        #expect(try Self.cloneState(ours, packedRefs: false) == Self.cloneState(theirs, packedRefs: false))
        try git(["fsck", "--full", "--strict", "--no-dangling"], in: ours)
    }

    /// An empty repository whose v0 advertisement has its capabilities on a `capabilities^{}`
    /// line with a 64-digit zero id (git 2.39's receive-pack writes it, later upload-packs
    /// too; the bytes are receive-pack's), and v0 first lines that name an unknown format or no
    /// capabilities: listed and cloned as git 2.39 lists and clones them.
    @Test func unusualFirstLinesAreReadAsGitReadsThem() throws {
        let empty = try git(["receive-pack", "--advertise-refs", SHA256Repositories.shared.path("empty.git")])
            .standardOutput
        #expect(String(decoding: empty, as: UTF8.self).contains(String(repeating: "0", count: 64) + " capabilities^{}"))
        let sha1 = String(repeating: "1", count: 40)
        let sha256 = String(repeating: "2", count: 64)
        let advertisements: [[UInt8]] = [
            empty,
            bytes(of: [.data(Array("\(sha1) HEAD\0object-format=sha512 agent=x\n".utf8)), .flush]),
            bytes(of: [.data(Array("\(sha1) refs/heads/main\n".utf8)), .flush]),
            bytes(of: [.data(Array("\(sha256) refs/heads/main\0object-format=sha256\n".utf8)), .flush]),
        ]
        for advertisement in advertisements {
            let server = try FakeGitServer([.send(advertisement)], connections: 2)
            let expected = try git(["-c", "protocol.version=0", "ls-remote", server.url()], check: false)
            let actual = try gitwire(["ls-remote", "--protocol-version=0", "--timeout=30", server.url()])
            #expect(actual.status == expected.status, "\(actual.errorText)")
            #expect(actual.text == expected.text)
            #expect(actual.errorText == expected.errorText)
            _ = server.finish()
        }
        // The empty one cloned: git 2.39 leaves a clone of a remote with no refs SHA-1.
        let server = try FakeGitServer([.send(empty)], connections: 2)
        let directory = try TemporaryDirectory()
        let expected = try git(
            ["-c", "protocol.version=0", "clone", "--bare", server.url(), directory.appending("theirs.git")])
        let actual = try gitwire(
            ["clone", "--bare", "--protocol-version=0", "--timeout=30", server.url(), directory.appending("ours.git")])
        _ = server.finish()
        #expect(actual.status == 0, "\(actual.errorText)")
        #expect(
            actual.errorText
                == expected.errorText.replacingOccurrences(of: "theirs.git", with: "ours.git"))
        let config = { (name: String) in
            try String(contentsOfFile: directory.appending("\(name)/config"), encoding: .utf8)
        }
        #expect(try config("ours.git").replacingOccurrences(of: "ours", with: "theirs") == config("theirs.git"))
    }

    struct MismatchCase: CustomTestStringConvertible, Sendable {
        var transport: Transport
        var version: Int
        /// A SHA-1 repository fetching from a SHA-256 remote, or the reverse.
        var intoSHA1: Bool
        var testDescription: String { "\(transport) v\(version) \(intoSHA1 ? "sha1 <- sha256" : "sha256 <- sha1")" }
    }

    static let mismatchCases: [MismatchCase] = [Transport.git, .file, .http].flatMap { transport in
        [0, 2].flatMap { version in
            [true, false].map { MismatchCase(transport: transport, version: version, intoSHA1: $0) }
        }
    }

    /// Every file of a repository with its bytes: what "nothing was written" is checked against.
    static func snapshot(_ path: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: path)
        while let name = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: "\(path)/\(name)", isDirectory: &isDirectory)
            files[name] = isDirectory.boolValue ? Data() : FileManager.default.contents(atPath: "\(path)/\(name)")
        }
        return files
    }

    /// A fetch between formats fails before anything is written but an empty `FETCH_HEAD` (git
    /// truncates it before it fetches), with git's message and status.
    @Test(arguments: mismatchCases)
    func aFetchBetweenFormatsFailsAsGitFails(_ testCase: MismatchCase) throws {
        let directory = try TemporaryDirectory()
        let remoteName = testCase.intoSHA1 ? "small.git" : "sha1-small.git"
        let sha1Remote = "\(SHA256Repositories.shared.basePath)/sha1-small.git"
        if !FileManager.default.fileExists(atPath: sha1Remote) {
            try git(["clone", "-q", "--bare", TestRepositories.shared.path("small.git"), sha1Remote + ".tmp"])
            try? FileManager.default.moveItem(atPath: sha1Remote + ".tmp", toPath: sha1Remote)
            try? FileManager.default.removeItem(atPath: sha1Remote + ".tmp")
        }
        let (url, environment) = try testCase.transport.location(remoteName)
        let ours = directory.appending("ours.git")
        let theirs = directory.appending("theirs.git")
        if testCase.intoSHA1 {
            try git(["clone", "-q", "--bare", TestRepositories.shared.path("detached.git"), ours])
        } else {
            try git(["clone", "-q", "--bare", SHA256Repositories.shared.path("detached.git"), ours])
        }
        try git(["clone", "-q", "--bare", "--no-local", ours, theirs])
        try git(["config", "remote.origin.url", ours], in: theirs)
        let before = try Self.snapshot(ours)
        let theirsBefore = try Self.snapshot(theirs)
        let expected = try git(
            ["-c", "protocol.version=\(testCase.version)", "fetch", url, "+refs/heads/*:refs/heads/*"], in: theirs,
            environment: environment, check: false)
        let actual = try gitwire(
            ["fetch", "--protocol-version=\(testCase.version)", url, ours, "+refs/heads/*:refs/heads/*"],
            environment: environment)
        #expect(actual.status == 128)
        #expect(actual.status == expected.status)
        #expect(actual.text == expected.text)
        // Over file:// git's standard error also has upload-pack's "the remote end hung up
        // unexpectedly", in either order: the client's own line is the same.
        let ours1 = actual.errorText.split(separator: "\n").filter { !$0.contains("remote end hung up") }
        let theirs1 = expected.errorText.split(separator: "\n").filter { !$0.contains("remote end hung up") }
        #expect(ours1 == theirs1)
        #expect(ours1.count == 1)
        // What changed is what changed in git's: FETCH_HEAD, emptied.
        var after = try Self.snapshot(ours)
        var theirsAfter = try Self.snapshot(theirs)
        #expect(after["FETCH_HEAD"] == theirsAfter["FETCH_HEAD"])
        #expect(after["FETCH_HEAD"] == Data())
        after["FETCH_HEAD"] = nil
        theirsAfter["FETCH_HEAD"] = nil
        #expect(after == before)
        #expect(theirsAfter == theirsBefore)
    }
}
