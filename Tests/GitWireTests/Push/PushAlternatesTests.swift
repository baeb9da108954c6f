import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// A server repository that borrows most of its history from another through
/// `objects/info/alternates`: its receive-pack advertises that history's tips as `.have` lines,
/// and git's send-pack takes them as the remote's objects (excluded from the pack, bases of a
/// thin one). gitwire's pack must hold what git's holds, no more, with the same refs and a clean
/// fsck on the server, over file://, git:// and smart HTTP.
@Suite(.serialized) struct PushAlternatesTests {
    /// The scenario, its template given an alternate (`borrowed.git`, outside the served root)
    /// that holds the local `main~1` and `feature`, and servers for it. The template keeps every
    /// pack it receives (`receive.unpackLimit=1`) so that what came can be counted.
    static let served = Result { () throws -> (PushScenario, GitDaemon, HTTPServer) in
        let scenario = try PushScenario()
        let borrowed = scenario.directory.appending("borrowed.git")
        try git(["init", "--quiet", "--bare", borrowed])
        try git(
            ["push", "--quiet", borrowed, "main~1:refs/heads/main", "feature:refs/heads/feature"], in: scenario.local)
        try "\(borrowed)/objects\n".write(
            toFile: "\(scenario.template)/objects/info/alternates", atomically: true, encoding: .utf8)
        try git(["config", "receive.unpackLimit", "1"], in: scenario.template)
        let daemon = try GitDaemon(basePath: scenario.root, extraArguments: ["--enable=receive-pack"])
        let server = try HTTPServer(root: scenario.root)
        return (scenario, daemon, server)
    }

    /// The commits of the packs the served repository holds that the template did not (a thin
    /// pack's bases, which receive-pack appends, are never commits).
    static func receivedCommits(_ scenario: PushScenario) throws -> [String] {
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: "\(scenario.template)/objects/pack"))
        let directory = "\(scenario.served)/objects/pack"
        var commits: [String] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: directory)
        where name.hasSuffix(".idx") && !before.contains(name) {
            let listing = try git(["verify-pack", "-v", "\(directory)/\(name)"]).text
            for line in listing.split(separator: "\n") {
                let words = line.split(separator: " ")
                if words.count >= 5 && words[1] == "commit" { commits.append(String(words[0])) }
            }
        }
        return commits.sorted()
    }

    /// Pushes with git and gitwire (output, exit status, refs and fsck compared by
    /// ``PushScenario/expectSameAsGit``), then compares the commits each pack brought.
    func expectSameCommits(_ url: String, _ refspecs: [String], environment: [String: String] = [:]) throws {
        let (scenario, _, _) = try Self.served.get()
        var received: [[String]] = []
        try scenario.expectSameAsGit(
            [url] + refspecs, environment: environment, inspect: { received.append(try Self.receivedCommits(scenario)) }
        )
        try #require(received.count == 2)
        // git sends main's last commit: the rest is borrowed.
        #expect(received[0].count <= 1, "git's pack: \(received[0])")
        #expect(received[1] == received[0], "\(refspecs)")
    }

    static let refspecs: [[String]] = [["main"], ["main", "feature:refs/heads/other"], ["main:refs/heads/new"]]

    /// Over file:// the pack each client sends is read as it goes (a receive-pack that copies its
    /// input to a file first): gitwire's has as many objects as git's and is no larger.
    @Test("file:// pushes leave out what the server's alternates hold, as git's", arguments: refspecs)
    func file(_ refspecs: [String]) throws {
        let (scenario, _, _) = try Self.served.get()
        let wrapper = scenario.directory.appending("copying-receive-pack")
        let copy = scenario.directory.appending("receive-pack-input")
        try "#!/bin/sh\ntee \"\(copy)\" | git-receive-pack \"$@\"\n".write(
            toFile: wrapper, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: wrapper)
        var sent: [(objects: Int, bytes: Int)] = []
        try scenario.expectSameAsGit(
            ["--receive-pack=\(wrapper)", "file://\(scenario.served)"] + refspecs,
            inspect: {
                let input = [UInt8](try Data(contentsOf: URL(fileURLWithPath: copy)))
                let magic = Array("PACK".utf8) + [0, 0, 0, 2]
                let start = try #require(
                    input.indices.first { input[$0...].starts(with: magic) }, "no pack in what was sent")
                let count = input[(start + 8)..<(start + 12)].reduce(0) { $0 << 8 | Int($1) }
                sent.append((count, input.count - start))
            })
        try #require(sent.count == 2)
        let (theirs, ours) = (sent[0], sent[1])
        // git sends main's last commit, its tree and the blob it changed: the rest is borrowed.
        #expect(theirs.objects <= 3, "git's pack: \(theirs)")
        #expect(ours.objects == theirs.objects, "objects: gitwire \(ours.objects), git \(theirs.objects)")
        #expect(ours.bytes <= theirs.bytes, "bytes: gitwire \(ours.bytes), git \(theirs.bytes)")
    }

    @Test("git:// pushes leave out what the server's alternates hold, as git's", arguments: refspecs)
    func daemon(_ refspecs: [String]) throws {
        let (_, daemon, _) = try Self.served.get()
        try expectSameCommits(daemon.url("served.git"), refspecs)
    }

    @Test("smart HTTP pushes leave out what the server's alternates hold, as git's")
    func http() throws {
        let (_, _, server) = try Self.served.get()
        try expectSameCommits(server.url("/git/served.git"), ["main"])
    }
}
