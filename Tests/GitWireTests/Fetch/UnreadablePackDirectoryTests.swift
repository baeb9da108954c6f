import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// An alternate object store whose `objects/pack` the user cannot list (mode 000; the tests run as
/// root, so the commands run without `CAP_DAC_OVERRIDE` and `CAP_DAC_READ_SEARCH`, through
/// `setpriv`): git's `prepare_packed_git_one` prints `error: unable to open object pack
/// directory: <path>: Permission denied` and reads no packs there, and the fetch goes on.
/// gitwire's fetch died (`fatal: opendir <path>: Permission denied`, 128). git prints the line
/// each time it looks for packs (twice in a fetch); gitwire once.
@Suite struct UnreadablePackDirectoryTests {
    @Test func fetchIntoASharedClone() throws {
        let root = try TemporaryDirectory(prefix: "gitwire-unreadable-pack")
        let source = root.appending("src.git")
        let work = root.appending("work")
        try bareUpstreamWithClone(upstream: source, work: work)
        for side in ["git", "gitwire"] {
            try git(["clone", "-q", "--bare", "--shared", source, root.appending("\(side).git")])
            try git(["remote", "set-url", "origin", "file://\(work)/.git"], in: root.appending("\(side).git"))
        }
        try git(["commit", "-q", "--allow-empty", "-m", "second"], in: work)
        try run(["chmod", "000", "\(source)/objects/pack"])
        defer { _ = try? run(["chmod", "755", "\(source)/objects/pack"]) }
        var outputs: [ProcessOutput] = []
        for (side, command) in [("git", "git"), ("gitwire", gitwireExecutable)] {
            outputs.append(
                try run(
                    [
                        "setpriv", "--bounding-set=-dac_override,-dac_read_search", command, "-C",
                        root.appending("\(side).git"), "fetch", "origin", "main:main",
                    ],
                    environment: reproducibleGitEnvironment, check: false))
        }
        #expect(outputs[0].status == 0, "git: \(outputs[0].errorText)")
        #expect(outputs[1].status == 0, "gitwire: \(outputs[1].errorText)")
        let refusal = "error: unable to open object pack directory: \(source)/objects/pack: Permission denied"
        #expect(outputs[0].errorText.contains(refusal + "\n"), "git: \(outputs[0].errorText)")
        // The same lines, git's error line once.
        let lines = outputs.map { Set($0.errorText.split(separator: "\n").map(String.init)) }
        #expect(lines[1] == lines[0], "gitwire: \(outputs[1].errorText)")
        #expect(
            try gitText(["rev-parse", "main"], in: root.appending("gitwire.git"))
                == gitText(["rev-parse", "main"], in: work))
    }
}
