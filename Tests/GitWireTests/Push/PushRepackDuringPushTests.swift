import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// A `git repack -adf` between gitwire opening the repository and writing the pack (here by the
/// `pre-push` hook, which runs once the remote's refs are known): the packs first listed are
/// removed, their objects now in a new pack at other offsets. Push's walk and delta search open
/// the database again for their threads; opening the packs again by path failed (`open
/// .../pack-<old>.pack: No such file or directory`, exit 128) where git, which keeps its packs
/// open, pushes. The readers opened again now share the descriptors the packs were first opened
/// with, so they read the very packs that were checked, whatever happened to their paths.
@Suite struct PushRepackDuringPushTests {
    @Test func repackByThePrePushHook() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-repack-push")
        let seed = directory.appending("seed")
        try git(["init", "-q", "-b", "main", seed])
        var input = ""
        for number in 0..<40 {
            input += "commit refs/heads/main\ncommitter C <c@example.com> \(1_700_000_000 + number) +0000\n"
            input += "data 2\nc\nM 100644 inline f\(number % 7)\ndata \(String(number).count + 6)\nfile \(number)\n\n"
        }
        try git(["fast-import", "--quiet"], in: seed, input: Array(input.utf8))
        try git(["repack", "-adq"], in: seed)
        let hook = "\(seed)/.git/hooks/pre-push"
        try "#!/bin/sh\ncat >/dev/null\nexec git repack -adfq --window=0\n".write(
            toFile: hook, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hook)
        var results: [(status: Int32, refs: String)] = []
        for side in ["git", "gitwire"] {
            let local = directory.appending("\(side)-local")
            let server = directory.appending("\(side)-server.git")
            try run(["cp", "-a", seed, local])
            try git(["init", "-q", "--bare", server])
            let packs = try FileManager.default.contentsOfDirectory(atPath: "\(local)/.git/objects/pack")
            let output =
                side == "git"
                ? try git(["push", "-q", server, "main"], in: local, check: false)
                : try gitwire(["push", "-q", server, "main"], in: local)
            #expect(output.status == 0, "\(side): \(output.errorText)")
            // The hook did repack: none of the packs there before is left.
            let after = try FileManager.default.contentsOfDirectory(atPath: "\(local)/.git/objects/pack")
            #expect(Set(packs).isDisjoint(with: after), "\(side)")
            let fsck = try git(["fsck", "--full", "--strict", "--no-dangling"], in: server, check: false)
            #expect(fsck.status == 0, "\(side): \(fsck.errorText)")
            results.append((output.status, try gitText(["for-each-ref"], in: server)))
        }
        #expect(results[1].status == results[0].status)
        #expect(results[1].refs == results[0].refs)
    }
}
