import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// A fetched history can hold a chain of tags naming tags (the brief's 100,000 of them). gitwire's
/// push followed at most 64: a push of a tag 70 deep failed with `fatal: object <id> is
/// corrupt`, and `t70^{}` matched nothing, where git 2.39.5 (no bound in `deref_tag`) pushes
/// both. The bound is now 2^20 (only a damaged object database can make a chain loop).
@Suite("push of a long tag chain")
struct PushTagChainTests {
    @Test func tagSeventyDeepPushesAsWithGit() throws {
        let work = try TemporaryDirectory(prefix: "gitwire-tag-chain")
        let local = work.appending("local")
        try git(["init", "--quiet", "--initial-branch=main", local])
        try git(["commit", "--quiet", "--allow-empty", "-m", "one"], in: local)
        var previous = "main"
        for index in 1...70 {
            try git(["-c", "advice.nestedTag=false", "tag", "-a", "-m", "t", "t\(index)", previous], in: local)
            previous = "t\(index)"
        }
        var refs: [String] = []
        for tool in ["git", "gitwire"] {
            let server = work.appending("\(tool).git")
            try git(["init", "--quiet", "--bare", server])
            for refspec in ["t70", "t70^{}:refs/heads/x"] {
                let arguments = ["push", "--quiet", server, refspec]
                let run =
                    tool == "git" ? try git(arguments, in: local, check: false) : try gitwire(arguments, in: local)
                #expect(run.status == 0, "\(tool) \(refspec): \(run.errorText)")
            }
            refs.append(try gitText(["for-each-ref"], in: server))
        }
        #expect(refs[0] == refs[1])
        #expect(refs[1].contains("refs/tags/t70"))
    }
}
