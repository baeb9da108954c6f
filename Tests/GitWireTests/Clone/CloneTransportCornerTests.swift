import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// Clone and fetch where servers and destinations are not what the common path expects (issue
/// #19): an upload-pack that offers no side-band (go-git's does not), a server that speaks on
/// band 2 (hooks, errors) while standard error is no terminal, a destination that is a dangling
/// symbolic link. git 2.39 does the same thing side by side.
@Suite("clone and fetch: servers and destinations off the common path")
struct CloneTransportCornerTests {
    static let refspecs = ["+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"]

    /// Two directories to run git and gitwire in, so that their messages name the same paths.
    struct SideBySide {
        let work: TemporaryDirectory
        let gitDirectory: String
        let ourDirectory: String

        init() throws {
            work = try TemporaryDirectory(prefix: "gitwire-corner")
            gitDirectory = work.appending("git")
            ourDirectory = work.appending("ours")
            for path in [gitDirectory, ourDirectory] {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            }
        }

        func file(_ name: String, inOurs: Bool) throws -> String {
            try String(contentsOfFile: "\(inOurs ? ourDirectory : gitDirectory)/\(name)", encoding: .utf8)
        }
    }

    /// The server: the hostile-history repository (tags, six commits) and its older clone.
    var history: HostileHistoryTests.History { get throws { try HostileHistoryTests.History.shared.get() } }

    /// An upload-pack that offers neither `side-band` nor `side-band-64k`: git sends its wants
    /// without them and reads the raw pack after `NAK`. gitwire used to refuse (`server does not
    /// support side-band`); now clone and fetch give git's repository and messages (v0 and v1;
    /// v2 always has side-band).
    @Test(arguments: [0, 1])
    func serverWithoutSideBand(version: Int) throws {
        let history = try history
        let sides = try SideBySide()
        var rules = UploadPackProxy.Rules()
        rules.replace = [[" side-band(-64k)?", ""]]
        rules.passthroughAfterFlushes = 1
        let proxy = try UploadPackProxy(rules, in: sides.work)
        let listing = try gitwire([
            "ls-remote", "--protocol-version=\(version)", "--upload-pack=\(proxy.command)", history.url,
        ])
        #expect(listing.status == 0)

        let gitClone = try git(
            [
                "-c", "protocol.version=\(version)", "clone", "--bare", "--upload-pack=\(proxy.command)", history.url,
                "c.git",
            ],
            in: sides.gitDirectory)
        let ourClone = try gitwire(
            [
                "clone", "--bare", "--protocol-version=\(version)", "--upload-pack=\(proxy.command)", history.url,
                "c.git",
            ],
            in: sides.ourDirectory)
        #expect(ourClone.status == 0, "\(ourClone.errorText)")
        #expect(ourClone.errorText == gitClone.errorText)
        for name in ["c.git/packed-refs", "c.git/HEAD", "c.git/config"] {
            #expect(try sides.file(name, inOurs: true) == sides.file(name, inOurs: false), "\(name)")
        }
        try git(["fsck", "--full", "--no-dangling"], in: "\(sides.ourDirectory)/c.git")

        // A fetch into the older clone: a thin pack, raw, completed from the local objects.
        for directory in [sides.gitDirectory, sides.ourDirectory] {
            try run(["cp", "-a", history.localTemplate, "\(directory)/f.git"])
        }
        let gitFetch = try git(
            ["-c", "protocol.version=\(version)", "fetch", "--no-tags", "--upload-pack=\(proxy.command)", history.url]
                + Self.refspecs, in: "\(sides.gitDirectory)/f.git")
        let ourFetch = try gitwire(
            ["fetch", "--no-tags", "--protocol-version=\(version)", "--upload-pack=\(proxy.command)", history.url]
                + Self.refspecs, in: "\(sides.ourDirectory)/f.git")
        #expect(ourFetch.status == 0, "\(ourFetch.errorText)")
        #expect(ourFetch.errorText == gitFetch.errorText)
        #expect(
            try gitText(["for-each-ref"], in: "\(sides.ourDirectory)/f.git")
                == gitText(["for-each-ref"], in: "\(sides.gitDirectory)/f.git"))
        try git(["fsck", "--full", "--no-dangling"], in: "\(sides.ourDirectory)/f.git")
    }

    /// What a server says on band 2 (a hook's output, an error) reaches standard error as
    /// `remote: ...` lines when standard error is not a terminal, and with `-q` too, as git shows
    /// them (CI logs depend on them). Byte for byte with git's, for clone and fetch, v0 and v2.
    @Test(arguments: [0, 2], [false, true])
    func bandTwoMessagesAreShown(version: Int, quiet: Bool) throws {
        let history = try history
        let sides = try SideBySide()
        var rules = UploadPackProxy.Rules()
        rules.beforeSideBand = ["\u{2}hook: hello\n", "\u{2}part one, ", "\u{2}part two\rover\n"]
        let proxy = try UploadPackProxy(rules, in: sides.work)
        let flags = quiet ? ["-q"] : []
        let gitClone = try git(
            ["-c", "protocol.version=\(version)", "clone"] + flags
                + ["--bare", "--upload-pack=\(proxy.command)", history.url, "c.git"], in: sides.gitDirectory)
        let ourClone = try gitwire(
            ["clone"] + flags
                + ["--bare", "--protocol-version=\(version)", "--upload-pack=\(proxy.command)", history.url, "c.git"],
            in: sides.ourDirectory)
        #expect(gitClone.errorText.contains("remote: hook: hello        \n"), "\(gitClone.errorText)")
        #expect(ourClone.status == 0)
        #expect(ourClone.errorText == gitClone.errorText)

        for directory in [sides.gitDirectory, sides.ourDirectory] {
            try run(["cp", "-a", history.localTemplate, "\(directory)/f.git"])
        }
        let gitFetch = try git(
            ["-c", "protocol.version=\(version)", "fetch", "--no-tags"] + flags
                + ["--upload-pack=\(proxy.command)", history.url] + Self.refspecs, in: "\(sides.gitDirectory)/f.git")
        let ourFetch = try gitwire(
            ["fetch", "--no-tags"] + flags
                + ["--protocol-version=\(version)", "--upload-pack=\(proxy.command)", history.url]
                + Self.refspecs, in: "\(sides.ourDirectory)/f.git")
        #expect(ourFetch.status == 0)
        #expect(ourFetch.errorText == gitFetch.errorText)
    }

    /// Control characters a server sends on band 2 are still replaced (git writes them as they
    /// are: a terminal would obey them).
    @Test func bandTwoControlCharactersAreMasked() throws {
        let history = try history
        let sides = try SideBySide()
        var rules = UploadPackProxy.Rules()
        rules.beforeSideBand = ["\u{2}bell\u{7} colour\u{1b}[31m red\n"]
        let proxy = try UploadPackProxy(rules, in: sides.work)
        let ours = try gitwire(
            ["clone", "-q", "--bare", "--upload-pack=\(proxy.command)", history.url, "c.git"], in: sides.ourDirectory)
        #expect(ours.status == 0)
        #expect(ours.errorText.hasPrefix("remote: bell"), "\(ours.errorText)")
        #expect(ours.errorText.contains(" red"))
        #expect(!ours.standardError.contains(0x1b) && !ours.standardError.contains(0x07), "\(ours.errorText)")
    }

    /// A destination that is a dangling symbolic link: git makes the directory it points to
    /// (through a chain of links too) and clones there; a link to a place whose parent is
    /// missing fails with git's message; a failed clone leaves the link (and the directory
    /// it made, emptied, as git does).
    @Test func danglingSymbolicLinkDestination() throws {
        let history = try history
        let sides = try SideBySide()
        for directory in [sides.gitDirectory, sides.ourDirectory] {
            try FileManager.default.createSymbolicLink(atPath: "\(directory)/t", withDestinationPath: "target")
            try FileManager.default.createSymbolicLink(atPath: "\(directory)/chain", withDestinationPath: "t2")
            try FileManager.default.createSymbolicLink(atPath: "\(directory)/t2", withDestinationPath: "target2")
            try FileManager.default.createSymbolicLink(atPath: "\(directory)/deep", withDestinationPath: "a/b/c")
        }
        func both(_ arguments: [String], _ target: String) throws -> (ProcessOutput, ProcessOutput) {
            let theirs = try git(
                ["clone", "--bare"] + arguments + [history.url, target], in: sides.gitDirectory, check: false)
            let ours = try gitwire(["clone", "--bare"] + arguments + [history.url, target], in: sides.ourDirectory)
            return (theirs, ours)
        }
        for target in ["t", "chain"] {
            let (theirs, ours) = try both([], target)
            #expect(theirs.status == 0)
            #expect(ours.status == 0, "\(ours.errorText)")
            #expect(ours.errorText == theirs.errorText)
            #expect(
                try sides.file("\(target)/packed-refs", inOurs: true)
                    == sides.file("\(target)/packed-refs", inOurs: false))
            try git(["fsck", "--no-dangling"], in: "\(sides.ourDirectory)/\(target)")
        }
        let (theirs, ours) = try both([], "deep")
        #expect(theirs.status == 128)
        #expect(ours.status == 128)
        #expect(
            ours.errorText.replacingOccurrences(of: sides.ourDirectory, with: "DIR")
                == theirs.errorText.replacingOccurrences(of: sides.gitDirectory, with: "DIR"))

        for directory in [sides.gitDirectory, sides.ourDirectory] {
            try FileManager.default.removeItem(atPath: "\(directory)/target")
        }
        let (gitFailed, ourFailed) = try both(["--upload-pack=false"], "t")
        #expect(gitFailed.status == 128)
        #expect(ourFailed.status == 128)
        #expect(ourFailed.errorText == gitFailed.errorText)
        for directory in [sides.gitDirectory, sides.ourDirectory] {
            #expect(FileManager.default.destinationOfSymbolicLinkSafe("\(directory)/t") == "target")
            #expect(try FileManager.default.contentsOfDirectory(atPath: "\(directory)/target").isEmpty)
        }
    }
}

extension FileManager {
    /// Where the symbolic link at `path` points, or nil.
    fileprivate func destinationOfSymbolicLinkSafe(_ path: String) -> String? {
        try? destinationOfSymbolicLink(atPath: path)
    }
}
