import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// A fetch into a repository with alternates (`clone --reference`/`--shared`): git's fetch-pack
/// offers the tips of the alternates' refs as `have`s and takes them as complete
/// (`for_each_alternate_ref`), so the server sends only what the alternates lack. gitwire read
/// the alternates' objects but offered only its own refs, and received again what the
/// alternate already had.
@Suite("fetch with alternates' refs")
struct FetchAlternateRefsTests {
    /// An upstream; `reference.git`, a clone of it; `work.git`, a `clone --reference` of the
    /// upstream taken before the upstream moved on by three commits the reference then
    /// fetched, and by one more the reference does not have.
    final class Scenario: @unchecked Sendable {
        let directory: TemporaryDirectory
        var upstream: String { directory.appending("upstream.git") }

        init() throws {
            directory = try TemporaryDirectory(prefix: "gitwire-alternate-refs")
            let seed = directory.appending("seed")
            try git(["init", "-q", "-b", "main", seed])
            var counter = 0
            func commits(_ count: Int) throws {
                for _ in 0..<count {
                    counter += 1
                    // Text that does not compress much, so that the packs' sizes tell.
                    var generator = SystemRandomNumberGenerator()
                    let text = (0..<2000).map { _ in String(generator.next() as UInt64, radix: 36) }
                    try text.joined(separator: "\n").write(
                        toFile: "\(seed)/file\(counter)", atomically: true, encoding: .utf8)
                    try git(["add", "."], in: seed)
                    try git(["commit", "-q", "-m", "c\(counter)"], in: seed)
                }
            }
            try commits(3)
            try git(["tag", "-a", "-m", "v1", "v1"], in: seed)
            try git(["clone", "-q", "--bare", seed, upstream])
            try git(["clone", "-q", "--bare", upstream, directory.appending("reference.git")])
            try git(["clone", "-q", "--bare", "--reference", directory.appending("reference.git"), upstream, work])
            try git(["config", "remote.origin.fetch", "+refs/heads/*:refs/remotes/origin/*"], in: work)
            try commits(3)
            try git(["tag", "-a", "-m", "v2", "v2"], in: seed)
            try git(["push", "-q", upstream, "main", "v2"], in: seed)
            try git(["fetch", "-q", "origin", "+refs/heads/*:refs/heads/*", "refs/tags/*:refs/tags/*"], in: reference)
            try commits(1)
            try git(["push", "-q", upstream, "main:refs/heads/newer"], in: seed)
        }

        var work: String { directory.appending("work.git") }
        var reference: String { directory.appending("reference.git") }
    }

    static let scenario = Result { try Scenario() }

    /// What a fetch asked for and offered (the `want`, `have` and `done` lines of its trace,
    /// without v0's capabilities),
    /// the packs it kept (with their sizes), its refs and its messages.
    struct Outcome: Equatable {
        var requests: [String]
        var packs: [String]
        var refs: String
        var status: Int32
        var messages: String
    }

    func fetch(_ command: [String], arguments: [String], name: String, version: Int) throws -> Outcome {
        let scenario = try Self.scenario.get()
        let copy = scenario.directory.appending("\(name)-v\(version)-\(command[0] == "git" ? "git" : "gitwire").git")
        try run(["cp", "-a", scenario.work, copy])
        let trace = "\(copy).trace"
        let packsBefore = Set(try FileManager.default.contentsOfDirectory(atPath: "\(copy)/objects/pack"))
        let output = try run(
            command + ["fetch"] + arguments, in: copy,
            environment: reproducibleGitEnvironment.merging([
                "GIT_TRACE_PACKET": trace, "GIT_CONFIG_COUNT": "1",
                "GIT_CONFIG_KEY_0": "protocol.version", "GIT_CONFIG_VALUE_0": "\(version)",
            ]) { $1 }, check: false)
        let lines = ((try? String(contentsOfFile: trace, encoding: .utf8)) ?? "").split(separator: "\n")
        let requests = lines.compactMap { line -> String? in
            guard let range = line.range(of: "fetch> ") ?? line.range(of: "clone> ") else { return nil }
            let payload = line[range.upperBound...]
            // v0's first want names the capabilities (and the agent) after the id.
            guard ["want ", "have ", "done"].contains(where: { payload.hasPrefix($0) }) else { return nil }
            return payload.split(separator: " ").prefix(2).joined(separator: " ")
        }
        let packs = try FileManager.default.contentsOfDirectory(atPath: "\(copy)/objects/pack")
            .filter { !packsBefore.contains($0) && $0.hasSuffix(".pack") }.sorted().map { name in
                let size = try FileManager.default.attributesOfItem(atPath: "\(copy)/objects/pack/\(name)")[.size]
                return "\(name) \(size as? Int ?? -1)"
            }
        let messages = output.errorText.replacingOccurrences(of: copy, with: "<dir>")
        return Outcome(
            requests: requests, packs: packs,
            refs: try gitText(["for-each-ref", "--format=%(objectname) %(refname)"], in: copy),
            status: output.status, messages: messages)
    }

    func expectSame(_ arguments: [String], name: String, version: Int) throws -> Outcome {
        // git keeps its pack rather than loose objects, as gitwire does.
        let theirs = try fetch(
            ["git", "-c", "transfer.unpackLimit=1"], arguments: arguments, name: name, version: version)
        let ours = try fetch([gitwireExecutable], arguments: arguments, name: name, version: version)
        #expect(ours.requests == theirs.requests, "\(name) v\(version)")
        #expect(ours.packs == theirs.packs, "\(name) v\(version)")
        #expect(ours.refs == theirs.refs, "\(name) v\(version)")
        #expect(ours.status == theirs.status, "\(name) v\(version): \(ours.messages)")
        #expect(ours.messages == theirs.messages, "\(name) v\(version)")
        return theirs
    }

    /// The reference has all but the newest commit: the same `have`s as git's (the reference's
    /// tips among them), the same pack, of the one commit the reference lacks.
    @Test(arguments: [0, 2])
    func theAlternatesRefsAreOfferedAsHaves(version: Int) throws {
        let scenario = try Self.scenario.get()
        let theirs = try expectSame(["-q", "origin"], name: "haves", version: version)
        let referenceMain = try gitText(["rev-parse", "main"], in: scenario.reference)
        #expect(theirs.requests.contains("have \(referenceMain)"))
        #expect(theirs.packs.count == 1)
    }

    /// Everything wanted is in the reference already: git sends no want at all and receives no
    /// pack; only the refs move.
    @Test(arguments: [0, 2])
    func nothingIsFetchedThatTheAlternateHas(version: Int) throws {
        let theirs = try expectSame(["origin", "main", "tag", "v2"], name: "complete", version: version)
        #expect(theirs.packs.isEmpty)
        #expect(!theirs.requests.contains { $0.hasPrefix("want ") })
    }
}
