import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// What a git:// URL may put in the request line `git daemon` reads: a newline (`%0a` in the
/// URL's path, which both decode) would let the rest reach the daemon as a line of its own. git
/// 2.39 refuses such a URL before it connects; gitwire must too, with git's words and status.
@Suite("git daemon request")
struct GitDaemonRequestTests {
    @Test(arguments: ["/repo%0ahost=elsewhere", "/repo%0A", "/%0agit-upload-pack%20/other"])
    func newlineInPathIsRefusedBeforeConnecting(path: String) throws {
        // A listener nobody serves: a client that connects is seen in its backlog.
        let listener = try ListeningSocket(host: "127.0.0.1")
        let url = "git://127.0.0.1:\(listener.address.port)\(path)"
        let ours = try gitwire(["ls-remote", "--timeout=5", url])
        let theirs = try git(["ls-remote", url], check: false)
        #expect(theirs.errorText == "fatal: newline is forbidden in git:// hosts and repo paths\n")
        #expect(ours.errorText == theirs.errorText)
        #expect(ours.status == theirs.status)
        #expect(try listener.accept(timeout: .zero) == nil, "gitwire connected")
    }
}
