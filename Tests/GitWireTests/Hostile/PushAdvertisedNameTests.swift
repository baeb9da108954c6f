import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// A receive-pack that advertises, beside its real refs, names git's push drops (`check_ref`
/// with REF_NORMAL: control characters, `..`, one level under `refs/`, outside `refs/`): a
/// `--mirror` push must neither delete them nor print them, and a well-formed name holding a C1
/// control is shown masked.
@Suite struct PushAdvertisedNameTests {
    /// git-receive-pack behind a filter that adds `names` (each at the first ref's id) after the
    /// first line of its advertisement.
    static func filter(_ scenario: PushScenario, names: [[UInt8]]) throws -> String {
        let path = scenario.directory.appending("naming-receive-pack-\(names.count)")
        let literal = names.map { "bytes([" + $0.map(String.init).joined(separator: ",") + "])" }.joined(
            separator: ", ")
        try writeReceivePackFilter(
            at: path,
            body: """
                names = [\(literal)]
                length = int(out.read(4), 16)
                payload = out.read(length - 4)
                sys.stdout.buffer.write(b"%04x" % length + payload)
                oid = payload[:40]
                for name in names:
                    line = oid + b" " + name + b"\\n"
                    sys.stdout.buffer.write(b"%04x" % (len(line) + 4) + line)
                relay()
                """)
        return path
    }

    @Test("names git's push drops from an advertisement are neither deleted by --mirror nor shown, as in git")
    func malformedNamesDropped() throws {
        let scenario = try PushScenario()
        let names: [[UInt8]] = [
            Array("refs/heads/\u{1b}]8;;http://127.0.0.1/\u{07}click\u{1b}]8;;\u{07}".utf8),
            Array("refs/heads/x\rOVER".utf8), Array("refs/heads/a..b".utf8), Array("refs/one-level".utf8),
            Array("refs/heads/bad@{1}".utf8), Array("refs/tags/t~1".utf8),
        ]
        let filter = try Self.filter(scenario, names: names)
        try scenario.expectSameAsGit(["--receive-pack=\(filter)", "--mirror", scenario.served])
        try scenario.expectSameAsGit(["--receive-pack=\(filter)", "--mirror", "--porcelain", scenario.served])
        try scenario.expectSameAsGit(["--receive-pack=\(filter)", scenario.served, "main", ":refs/heads/a..b"])
    }

    @Test("a well-formed advertised name holding a C1 control is shown masked")
    func c1NameMasked() throws {
        let scenario = try PushScenario()
        // U+009B (CSI) in UTF-8: a valid ref name for git, which prints it as it is.
        let filter = try Self.filter(scenario, names: [Array("refs/heads/\u{9b}31mred".utf8)])
        for porcelain in [false, true] {
            try scenario.reset()
            let output = try gitwire(
                ["push", "--receive-pack=\(filter)", "--mirror"] + (porcelain ? ["--porcelain"] : []) + [
                    scenario.served
                ], in: scenario.local)
            let all = output.standardOutput + output.standardError
            #expect(!all.contains(0x9b), "\(output.text)\(output.errorText)")
            // receive-pack cannot delete it (it never existed): the summary names it, masked.
            let summary = porcelain ? output.text : output.errorText
            let line = porcelain ? "!\t:refs/heads/?31mred\t[remote rejected]" : " ! [remote rejected] ?31mred ("
            #expect(summary.contains(line), "\(summary)")
            let fromGit = try git(
                ["push", "--receive-pack=\(filter)", "--mirror"] + (porcelain ? ["--porcelain"] : []) + [
                    scenario.served
                ], in: scenario.local, check: false)
            // git sends its deletion too (it is well formed) and prints the control as it came.
            #expect((fromGit.standardOutput + fromGit.standardError).contains(0x9b))
        }
    }

    /// git's parse_refspec for a push: a destination (or a lone source) must be a well-formed
    /// ref name, an empty destination after a source is refused, `@` is `HEAD`.
    @Test(
        "refspecs git refuses are refused alike; @ is shown as HEAD",
        arguments: [
            "main:", "HEAD~1", "main:@", "main:refs/heads/x.lock", "HEAD:x/", "main:a b", "main:refs/heads/a..b",
            "@", "@:refs/heads/y",
        ])
    func refspecsChecked(_ refspec: String) throws {
        let scenario = try PushScenario()
        try scenario.expectSameAsGit([scenario.served, refspec])
        try scenario.expectSameAsGit([
            "--delete", scenario.served,
            refspec.contains(":") ? String(refspec.drop { $0 != ":" }.dropFirst()) : refspec,
        ])
    }
}
