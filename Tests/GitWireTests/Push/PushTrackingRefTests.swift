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
}
