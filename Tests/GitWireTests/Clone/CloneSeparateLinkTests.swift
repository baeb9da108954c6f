import Foundation
import GitWireTestSupport
import Testing

/// `clone --separate-git-dir=<link>` where `<link>` is a dangling symbolic link: git follows it
/// (the repository is made where it points, the work tree's `.git` names that real path) and a
/// failed clone empties that directory and leaves it and the link; gitwire refused the link
/// (`fatal: <link> already exists`). Now as git, side by side.
@Suite struct CloneSeparateLinkTests {
    @Test("a dangling link as the separate git directory is followed, as git follows it")
    func danglingLinkFollowed() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-separate-link")
        let upstream = directory.appending("up")
        try git(["init", "-q", "-b", "main", upstream])
        try git(["commit", "-q", "--allow-empty", "-m", "one"], in: upstream)
        // A template git's init cannot use (`config` a directory) makes the clone fail once the
        // directory is made.
        let unusable = directory.appending("unusable")
        try FileManager.default.createDirectory(atPath: "\(unusable)/config", withIntermediateDirectories: true)
        var seen: [[String]] = []
        for side in ["git", "ours"] {
            let base = directory.appending(side)
            try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: "\(base)/link", withDestinationPath: "made")
            let arguments = ["clone", "-q", "--separate-git-dir=link", upstream, "work"]
            let cloned = side == "git" ? try git(arguments, in: base, check: false) : try gitwire(arguments, in: base)
            #expect(cloned.status == 0, "\(side): \(cloned.errorText)")
            let real = try String(contentsOfFile: "\(base)/work/.git", encoding: .utf8)
            #expect(real.hasSuffix("/\(side)/made\n"), "\(side): \(real)")
            #expect(
                try gitText(["rev-parse", "HEAD"], in: "\(base)/work") == gitText(["rev-parse", "main"], in: upstream))

            try FileManager.default.removeItem(atPath: "\(base)/work")
            try FileManager.default.removeItem(atPath: "\(base)/made")
            let failing = ["clone", "-q", "--template=\(unusable)", "--separate-git-dir=link", upstream, "work"]
            let failed = side == "git" ? try git(failing, in: base, check: false) : try gitwire(failing, in: base)
            #expect(failed.status == 128, "\(side): \(failed.errorText)")
            seen.append(try FileManager.default.contentsOfDirectory(atPath: base).sorted())
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: "\(base)/link") == "made")
            #expect(try FileManager.default.contentsOfDirectory(atPath: "\(base)/made") == [], "\(side)")
        }
        #expect(seen[0] == ["link", "made"] && seen[1] == seen[0], "\(seen)")
    }
}
