import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// Remote-tracking refs after a push the server accepted: one that cannot be moved (a name
/// conflict with a stale `x/y`) is git's `error: update_ref failed for ref …` line after the
/// ref lines, the push itself still a success, nothing else touched, no lock left.
@Suite struct PushTrackingRefTests {
    @Test("a remote-tracking ref that cannot be moved after the push is an error line, as git's")
    func trackingConflict() throws {
        let scenario = try PushScenario()
        try git(["remote", "add", "origin", scenario.served], in: scenario.local)
        for options in [[], ["--porcelain"], ["-q"]] {
            try scenario.expectSameAsGit(options + ["origin", "main:refs/heads/x", "feature"]) {
                try scenario.trackOrigin()
                try git(["update-ref", "refs/remotes/origin/x/y", "main~3"], in: scenario.local)
            }
            let locks = try run(["find", "\(scenario.local)/.git/refs", "-name", "*.lock"]).text
            #expect(locks.isEmpty, "\(locks)")
        }
    }

    @Test("remote-tracking refs a push moves get git's reflog entry (update by push)")
    func trackingReflog() throws {
        let scenario = try PushScenario()
        try git(["remote", "add", "origin", scenario.served], in: scenario.local)
        let logs = "\(scenario.local)/.git/logs/refs/remotes/origin"
        var seen: [[String: String]] = []
        for side in ["git", "gitwire"] {
            try scenario.reset()
            try scenario.trackOrigin()
            let arguments = ["push", "origin", "main", "main:refs/heads/new", ":gone"]
            let result =
                side == "git"
                ? try git(arguments, in: scenario.local, check: false)
                : try gitwire(arguments, in: scenario.local, environment: reproducibleGitEnvironment)
            #expect(result.status == 0, "\(side): \(result.errorText)")
            var files: [String: String] = [:]
            for name in try FileManager.default.subpathsOfDirectory(atPath: logs) {
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: "\(logs)/\(name)", isDirectory: &isDirectory),
                    !isDirectory.boolValue
                {
                    files[name] = try String(contentsOfFile: "\(logs)/\(name)", encoding: .utf8)
                }
            }
            seen.append(files)
        }
        #expect(seen[1] == seen[0])
        #expect(seen[0]["main"]?.hasSuffix("\tupdate by push\n") == true)
    }
}
