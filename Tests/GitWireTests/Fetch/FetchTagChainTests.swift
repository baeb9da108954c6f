import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// A fetch whose only local tip is an annotated tag 70 tags deep: git's fetch-pack peels it to
/// its commit (`deref_tag` has no bound) and offers that commit as a `have`, so the server sends
/// only what is new. gitwire's negotiator stopped after 64 tags (push's walk followed 2^20),
/// offered nothing and received the whole history again.
@Suite("fetch negotiation through a long tag chain")
struct FetchTagChainTests {
    /// An upstream with three commits on `main`; `work.git`, a bare clone of it taken at the
    /// second whose only ref is `refs/tags/deep`, a tag of a tag ... 70 deep naming that commit.
    static let scenario = Result { () throws -> TemporaryDirectory in
        let directory = try TemporaryDirectory(prefix: "gitwire-tag-chain")
        let seed = directory.appending("seed")
        try git(["init", "-q", "-b", "main", seed])
        for counter in 1...3 {
            // Text that does not compress much, so that what is sent tells.
            var generator = SystemRandomNumberGenerator()
            let text = (0..<2000).map { _ in String(generator.next() as UInt64, radix: 36) }
            try text.joined(separator: "\n").write(
                toFile: "\(seed)/file\(counter)", atomically: true, encoding: .utf8)
            try git(["add", "."], in: seed)
            try git(["commit", "-q", "-m", "c\(counter)"], in: seed)
            if counter == 2 {
                try git(["clone", "-q", "--bare", seed, directory.appending("upstream.git")])
                try git(["clone", "-q", "--bare", directory.appending("upstream.git"), directory.appending("work.git")])
            }
        }
        try git(["push", "-q", directory.appending("upstream.git"), "main"], in: seed)
        let work = directory.appending("work.git")
        var target = try gitText(["rev-parse", "main"], in: work)
        var type = "commit"
        for level in 0..<70 {
            let tag = "tag \(level)\n"
            let object =
                "object \(target)\ntype \(type)\ntag t\(level)\n"
                + "tagger T <t@example.com> 1700000000 +0000\n\n\(tag)"
            target = try git(["mktag"], in: work, input: Array(object.utf8)).text
                .trimmingCharacters(in: .whitespacesAndNewlines)
            type = "tag"
        }
        try git(["update-ref", "refs/tags/deep", target], in: work)
        try git(["update-ref", "-d", "refs/heads/main"], in: work)
        try git(["config", "remote.origin.fetch", "+refs/heads/*:refs/remotes/origin/*"], in: work)
        return directory
    }

    /// The `have` lines a fetch (`command`) into a copy of `work.git` sent, and its refs after.
    func fetch(_ command: [String], version: Int) throws -> (haves: [String], refs: String, status: Int32) {
        let directory = try Self.scenario.get()
        let side = command[0] == "git" ? "git" : "gitwire"
        let copy = directory.appending("fetch-v\(version)-\(side).git")
        try? FileManager.default.removeItem(atPath: copy)
        try run(["cp", "-a", directory.appending("work.git"), copy])
        let trace = "\(copy).trace"
        try? FileManager.default.removeItem(atPath: trace)
        let output = try run(
            command + ["fetch", "-q", "origin"], in: copy,
            environment: reproducibleGitEnvironment.merging([
                "GIT_TRACE_PACKET": trace, "GIT_CONFIG_COUNT": "1",
                "GIT_CONFIG_KEY_0": "protocol.version", "GIT_CONFIG_VALUE_0": "\(version)",
            ]) { $1 }, check: false)
        let lines = ((try? String(contentsOfFile: trace, encoding: .utf8)) ?? "").split(separator: "\n")
        let haves = lines.compactMap { line -> String? in
            guard let range = line.range(of: "> have ") else { return nil }
            return String(line[range.upperBound...])
        }
        let refs = try gitText(["for-each-ref", "--format=%(objectname) %(refname)"], in: copy)
        return (haves, refs, output.status)
    }

    @Test("a 70-tag chain peeled to its commit, offered as git offers it", arguments: [0, 2])
    func deepChain(version: Int) throws {
        let directory = try Self.scenario.get()
        let expected = try gitText(["rev-parse", "main~1"], in: directory.appending("upstream.git"))
        let ours = try fetch([gitwireExecutable], version: version)
        let theirs = try fetch(["git"], version: version)
        #expect(theirs.status == 0)
        // The chain's commit first, then its parent as the walk goes on.
        #expect(theirs.haves.first == expected, "git: \(theirs.haves)")
        #expect(ours.status == 0)
        #expect(ours.haves == theirs.haves, "gitwire: \(ours.haves)")
        #expect(ours.refs == theirs.refs)
    }
}
