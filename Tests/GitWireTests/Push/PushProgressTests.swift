import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `gitwire push --progress` against `git push --progress` on identical servers: the same
/// phases and counts on standard error. Only what depends on time or on the order objects are
/// written in is masked: sizes and rates, the timer's in-between "Enumerating objects: N"
/// redraws, and the in-between "Writing objects" percentages (git writes in its own order, so a
/// base written first for a delta can make it skip a different percentage). The number of
/// deltas in the "Total" line is masked too: the objects searched are git's, but the delta
/// encoder is gitwire's own, so a candidate git's encoder finds too large can fit here.
@Suite(.serialized) struct PushProgressTests {
    static func normalized(_ text: String) -> [String] {
        var lines: [String] = []
        for piece in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\r" || $0 == "\n" }) {
            var line = String(piece)
            while line.hasSuffix(" ") { line.removeLast() }
            if line.hasPrefix("Writing objects:"), line.contains(" | "), let close = line.firstIndex(of: ")") {
                line = line[...close] + " <size | rate>" + (line.hasSuffix(", done.") ? ", done." : "")
            }
            if line.hasPrefix("Writing objects:") && !line.hasSuffix("done.") { continue }
            if line.hasPrefix("Enumerating objects:") && !line.hasSuffix("done.") { continue }
            if line.hasPrefix("To ") { continue }
            if line.hasPrefix("Total "), let open = line.firstIndex(of: "("), let close = line.firstIndex(of: ")") {
                line.replaceSubrange(open...close, with: "(delta <n>)")
            }
            if lines.last == line { continue }
            lines.append(line)
        }
        return lines
    }

    @Test(
        "--progress: Enumerating, Counting, Delta compression, Compressing, Writing and Total as git prints them",
        arguments: [
            ["main", "feature", "v1"], ["--progress", "main:old"], ["-q", "feature:main", "v1"],
        ])
    func progress(_ refspecs: [String]) throws {
        let scenario = try PushScenario()
        // New loose objects on top of the packed ones: the delta search has work.
        try scenario.commit(13)
        try scenario.commit(14)
        let arguments = ["--progress", "file://\(scenario.served)"] + refspecs
        try scenario.reset()
        let fromGit = try git(["push"] + arguments, in: scenario.local, check: false)
        try scenario.reset()
        let fromGitwire = try gitwire(["push"] + arguments, in: scenario.local, environment: reproducibleGitEnvironment)
        #expect(fromGitwire.status == fromGit.status)
        let expected = Self.normalized(String(decoding: fromGit.standardError, as: UTF8.self))
        #expect(expected.contains { $0.hasPrefix("Compressing objects: 100%") })
        #expect(Self.normalized(fromGitwire.errorText) == expected)
        #expect(try scenario.serverState().fsck == 0)
    }

    @Test("progress shows on a terminal, not with -q or when standard error is not one")
    func terminal() throws {
        let scenario = try PushScenario()
        for (options, shows) in [([String](), true), (["-q"], false)] {
            try scenario.reset()
            let command = ([gitwireExecutable, "push"] + options + ["file://\(scenario.served)", "main"]).map {
                "'\($0)'"
            }.joined(separator: " ")
            let onTerminal = try run(
                ["script", "-qec", command, "/dev/null"], in: scenario.local, environment: reproducibleGitEnvironment)
            #expect(onTerminal.text.contains("Writing objects: 100%") == shows, "\(options)")
            #expect(onTerminal.text.contains("Total ") == shows, "\(options)")
        }
        try scenario.reset()
        let piped = try gitwire(
            ["push", "file://\(scenario.served)", "main"], in: scenario.local, environment: reproducibleGitEnvironment)
        #expect(!piped.errorText.contains("objects"))
    }
}
