import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// Smart HTTP pushes whose discovery goes through (redirected to another origin, to the same
/// one, or not at all) and whose `POST` meets a 401 with no credentials to be had: git's remote
/// helper dies with `could not read Username for '<origin>'`, its send-pack then says the report
/// never came (`send-pack: unexpected disconnect while reading sideband packet`, `fatal: the
/// remote end hung up unexpectedly`) and the push fails (`error: failed to push some refs`, exit
/// 1); gitwire says the same, sends nothing the server takes, and never sends the first origin's
/// credential to the second (where git 2.39.5 does, and so succeeds).
@Suite(.serialized) struct PushHTTPRedirectTests {
    /// The scenario, served by A (`127.0.0.1`, logging which credential each request carried) and
    /// B (`127.0.0.2`); A's `/cross/<B>/authpost/` redirects to B, whose `POST`s want credentials.
    static let served = Result { () throws -> (PushScenario, HTTPServer, HTTPServer) in
        let scenario = try PushScenario()
        // `big`: a commit of 300,000 random bytes, a pack too large for a 64 KiB post buffer.
        try git(["checkout", "--quiet", "-b", "big"], in: scenario.local)
        try PushHTTPTests.addRandomFile(scenario, bytes: 300_000, name: "big.bin")
        try git(["checkout", "--quiet", "main"], in: scenario.local)
        let a = try HTTPServer(root: scenario.root, logsAuthorization: true)
        let b = try HTTPServer(root: scenario.root, address: "127.0.0.2", logsAuthorization: true)
        return (scenario, a, b)
    }

    @Test(
        "a 401 on the POST with no credentials fails the push as git's",
        arguments: ["cross-origin", "same-origin", "no-redirect"], [false, true])
    func unauthorizedPost(_ route: String, large: Bool) throws {
        let (scenario, a, b) = try Self.served.get()
        let path: String
        switch route {
        case "cross-origin": path = "/cross/\(b.authority)/authpost/served.git"
        case "same-origin": path = "/cross/\(a.authority)/authpost/served.git"
        default: path = "/authpost/served.git"
        }
        // A large push probes first (the probe meets the 401), as git's.
        let environment =
            large
            ? ["GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "http.postBuffer", "GIT_CONFIG_VALUE_0": "64k"] : [:]
        try Self.expectSameFailure(
            scenario, [a.url(path)] + (large ? ["big"] : ["main", "feature"]), environment: environment, probed: large)
    }

    /// git's send-pack (a child of its remote helper) says the report never came while git's
    /// push itself says the push failed: their lines come in any order (git's standard error is
    /// read to its end, send-pack's last words included). gitwire prints them in the order of
    /// their causes (send-pack's first).
    static let racingLine = "fatal: the remote end hung up unexpectedly"
    /// The line of send-pack's demultiplexer before it.
    static let disconnectLine = "send-pack: unexpected disconnect while reading sideband packet"

    /// Pushes with git (`gitArguments`, when given), then with gitwire (`arguments`), each on a
    /// fresh copy of the server: the same output but for the racing lines' places, the same
    /// status (1), the server untouched by both. `probed`: the pack was too large to send at
    /// once, and git's send-pack, still writing it when the helper died, may die of the broken
    /// pipe before or after saying anything: its lines are left out of the comparison.
    static func expectSameFailure(
        _ scenario: PushScenario, _ arguments: [String], gitArguments: [String]? = nil,
        environment: [String: String] = [:], probed: Bool = false
    ) throws {
        try scenario.reset()
        let before = try scenario.serverState()
        let theirs = try scenario.gitReadToTheEnd(
            ["push"] + (gitArguments ?? arguments), in: scenario.local, environment: environment)
        #expect(try scenario.serverState() == before)
        try scenario.reset()
        let ours = try gitwire(
            ["push"] + arguments, in: scenario.local,
            environment: reproducibleGitEnvironment.merging(environment) { $1 })
        #expect(try scenario.serverState() == before)
        let racing = [disconnectLine, racingLine]
        func kept(_ text: String) -> [Substring] {
            text.split(separator: "\n").filter { !racing.contains(String($0)) }
        }
        #expect(kept(ours.errorText) == kept(theirs.errorText), "\(arguments)")
        if !probed {
            let said = Set(theirs.errorText.split(separator: "\n").map(String.init))
            #expect(said.isSuperset(of: racing), "\(theirs.errorText)")
        }
        let lines = ours.errorText.split(separator: "\n")
        #expect(lines.count >= 3 && lines[lines.count - 3] == disconnectLine, "\(ours.errorText)")
        #expect(lines.count >= 2 && lines[lines.count - 2] == racingLine, "\(ours.errorText)")
        #expect(ours.text == theirs.text)
        #expect(ours.status == theirs.status)
        #expect(ours.status == 1)
    }

    /// With A's password in the URL, git sends it to B and the push succeeds there; gitwire keeps
    /// it for A, meets B's 401 without credentials and fails as git fails without any.
    @Test("A's credential never goes to B: the push fails as git's without credentials")
    func credentialStaysWithItsOrigin() throws {
        let (scenario, a, b) = try Self.served.get()
        let path = "/cross/\(b.authority)/authpost/served.git"
        let withPassword = a.url(path).replacing("://", with: "://\(a.username):\(a.password)@")
        let requestsBefore = b.loggedRequests().count
        try Self.expectSameFailure(scenario, [withPassword, "main"], gitArguments: [a.url(path), "main"])
        let sent = b.loggedRequests().dropFirst(requestsBefore)
        #expect(sent.contains { $0.hasPrefix("POST") }, "\(sent)")
        #expect(!sent.contains { $0.contains(a.password) }, "\(sent)")
    }
}
