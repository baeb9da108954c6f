import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// Issue 19, credentials, against hostile servers: the real `git http-backend` behind
/// `Tools/git-http-server.py` on three origins (A on 127.0.0.1, B on 127.0.0.1 at another port,
/// C on 127.0.0.2, another host on loopback; A is also reached as `localhost`, another host
/// name), each logging the `Authorization` and `Host` of every request, and a credential helper
/// (in a throwaway `HOME`) that answers for A only and logs what it is asked. A's password must
/// never reach another origin, nor any output: standard output and error, `--json`, packet
/// traces, recordings, directory names. git 2.39.5 runs the same commands for comparison.
@Suite("http credentials", .serialized)
struct HTTPCredentialTests {
    static let user = "alice"
    static let password = "A-pw-19-x7Q"

    /// A, B and C; B and C accept other credentials than A.
    struct Servers: Sendable {
        let a: HTTPServer
        let b: HTTPServer
        let c: HTTPServer

        init() throws {
            let root = TestRepositories.shared.basePath
            a = try HTTPServer(root: root, username: user, password: password, logsAuthorization: true)
            b = try HTTPServer(root: root, username: "bob", password: "b-pw", logsAuthorization: true)
            c = try HTTPServer(
                root: root, address: "127.0.0.2", username: "bob", password: "b-pw", logsAuthorization: true)
        }

        var all: [HTTPServer] { [a, b, c] }

        /// How many requests each has logged so far.
        func mark() -> [Int] { all.map { $0.loggedRequests().count } }

        /// The requests logged since `mark`, on every server.
        func requests(since mark: [Int]) -> [String] {
            zip(all, mark).flatMap { server, count in server.loggedRequests().dropFirst(count) }
        }
    }

    static let servers = Result { try Servers() }

    /// A `HOME` whose git configuration (`GIT_CONFIG_GLOBAL`) names a credential helper that
    /// answers `get` for `origin` only, with ``user`` and ``password``, taking `delay` seconds;
    /// it logs each call as `<action> <protocol>://<host>`, and `overlap` when it starts while
    /// another call of it is still running.
    struct CredentialHome {
        let directory: TemporaryDirectory
        let log: String
        let environment: [String: String]

        init(answeringFor origin: String, delay: String = "0") throws {
            directory = try TemporaryDirectory()
            log = directory.appending("helper.log")
            let script = directory.appending("helper.sh")
            let lock = directory.appending("running")
            try writeExecutable(
                script,
                """
                #!/bin/sh
                input=$(cat)
                what=$(printf '%s\\n' "$input" | sed -n 's/^protocol=//p')://$(printf '%s\\n' "$input" | sed -n 's/^host=//p')
                if mkdir '\(lock)' 2>/dev/null; then mine=1; else echo overlap >> '\(log)'; fi
                echo "$1 $what" >> '\(log)'
                sleep \(delay)
                if [ "$1" = get ] && [ "$what" = '\(origin)' ]; then
                    printf 'username=%s\\npassword=%s\\n' '\(HTTPCredentialTests.user)' '\(HTTPCredentialTests.password)'
                fi
                [ -n "$mine" ] && rmdir '\(lock)'
                exit 0

                """)
            let config = directory.appending("gitconfig")
            try "[credential]\n\thelper = \(script)\n".write(toFile: config, atomically: true, encoding: .utf8)
            environment = reproducibleGitEnvironment.merging(["HOME": directory.path, "GIT_CONFIG_GLOBAL": config]) {
                $1
            }
        }

        /// The calls logged so far, one line each.
        func calls() -> [String] {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
    }

    /// Whether a logged request carried `password` (its `Authorization`, decoded, or anywhere).
    static func carries(_ line: String, _ password: String) -> Bool { line.contains(password) }

    /// The `Host` a logged request was sent to.
    static func host(of line: String) -> String {
        line.split(separator: " ").last { $0.hasPrefix("host=") }.map { String($0.dropFirst(5)) } ?? ""
    }

    /// Every command gitwire runs on `url` (ls-remote, clone, fetch, batch text and JSON, a push's
    /// dry run, with packet traces and a recording where the command takes them), run in `directory`; returns
    /// each one's output, named.
    static func runEverything(_ url: String, in directory: TemporaryDirectory, environment: [String: String]) throws
        -> [(String, ProcessOutput)]
    {
        let traced = environment.merging(["GIT_TRACE_PACKET": directory.appending("trace")]) { $1 }
        let list = directory.appending("urls")
        try "\(url)\n".write(toFile: list, atomically: true, encoding: .utf8)
        try git(["init", "-q", "--bare", directory.appending("fetched.git")])
        let pushing = directory.appending("pushing")
        try git(["init", "-q", pushing])
        try git(["-C", pushing, "commit", "-q", "--allow-empty", "-m", "to push"])
        return [
            (
                "ls-remote",
                try gitwire(["ls-remote", "--record=\(directory.appending("ls.session"))", url], environment: traced)
            ),
            ("clone", try gitwire(["clone", "--bare", url], in: directory.path, environment: traced)),
            (
                "fetch",
                try gitwire(
                    ["fetch", url, directory.appending("fetched.git"), "+refs/heads/*:refs/heads/*"],
                    environment: traced)
            ),
            ("batch", try gitwire(["ls-remote", "--batch", list], environment: environment)),
            ("batch --json", try gitwire(["ls-remote", "--batch", list, "--json"], environment: environment)),
            // A dry run: the advertisement is read and recorded, nothing is sent to the server.
            (
                "push --record",
                try gitwire(
                    [
                        "push", "--dry-run", "--record=\(directory.appending("push.session"))", url,
                        "HEAD:refs/heads/never",
                    ],
                    in: pushing, environment: traced)
            ),
        ]
    }

    /// Nothing in `outputs`, in the files under `directory` (traces, recordings, repositories)
    /// or in the names there holds `secret`.
    static func expectNowhere(
        _ secret: String, outputs: [(String, ProcessOutput)], directory: TemporaryDirectory,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        for (name, output) in outputs {
            #expect(!output.text.contains(secret), "\(name) printed it: \(output.text)", sourceLocation: sourceLocation)
            #expect(
                !output.errorText.contains(secret), "\(name) printed it: \(output.errorText)",
                sourceLocation: sourceLocation)
        }
        let files = FileManager.default.enumerator(atPath: directory.path)?.allObjects as? [String] ?? []
        #expect(!files.isEmpty, sourceLocation: sourceLocation)
        for file in files {
            #expect(!file.contains(secret), "a name holds it: \(file)", sourceLocation: sourceLocation)
            // The list given to --batch is the test's own; remote.origin.url keeps the URL as
            // given, as git writes it. Nothing else may hold the password.
            if file == "urls" || file.hasSuffix("/config") { continue }
            let bytes = (try? Data(contentsOf: URL(fileURLWithPath: directory.appending(file)))) ?? Data()
            #expect(
                bytes.range(of: Data(secret.utf8)) == nil, "\(file) holds it", sourceLocation: sourceLocation)
        }
    }

    enum Source: String, CaseIterable, Sendable {
        /// The helper answers A's 401, then A redirects (`/authcross/`).
        case helper
        /// The URL carries A's password; A redirects (`/cross/`).
        case url
        /// The same, and A's `Location` carries user information of its own (`/cross-userinfo/`).
        case urlAndLocation
    }

    enum Target: String, CaseIterable, Sendable {
        /// B: another port on 127.0.0.1.
        case otherPort
        /// A itself, reached as `localhost`: another host name.
        case otherName
        /// C: 127.0.0.2, another host.
        case otherHost
    }

    /// D1: A redirects the discovery request to another origin, which lets the discovery through
    /// and answers the `POST` with 401 (`/authpost/`). A's credential goes to no other origin, in
    /// every command; the other origin's 401 asks the helper about that origin (which has nothing
    /// for it), as git does; A's credential is not rejected for another origin's 401; the
    /// user information A wrote into its `Location` is not sent either.
    ///
    /// git 2.39.5 on the same servers: with the password in the URL it sends A's credential in
    /// the `POST` to B, to `localhost` and to 127.0.0.2 (the curl handle keeps the user name and
    /// password it was given for A), sends the `Location`'s user information, and rejects
    /// (erases) credentials for another origin's 401; after the helper's answer it does not
    /// follow the redirect for its `POST`s at all (`RPC failed; HTTP 302`). Where git says
    /// something about the same situation, gitwire says it in the same words.
    @Test(arguments: Source.allCases, Target.allCases)
    func credentialsNeverReachAnotherOrigin(source: Source, target: Target) throws {
        let servers = try Self.servers.get()
        let targetAuthority: String
        switch target {
        case .otherPort: targetAuthority = servers.b.authority
        case .otherName: targetAuthority = "localhost:\(servers.a.port)"
        case .otherHost: targetAuthority = servers.c.authority
        }
        let home = try CredentialHome(answeringFor: "http://\(servers.a.authority)")
        let route = ["helper": "authcross", "url": "cross", "urlAndLocation": "cross-userinfo"][source.rawValue]!
        let withPassword = source == .helper ? "" : "\(Self.user):\(Self.password)@"
        let url = "http://\(withPassword)\(servers.a.authority)/\(route)/\(targetAuthority)/authpost/small.git"

        let directory = try TemporaryDirectory()
        let mark = servers.mark()
        let outputs = try Self.runEverything(url, in: directory, environment: home.environment)
        let requests = servers.requests(since: mark)
        let calls = home.calls()

        // A's credential went to A's origin only, and the Location's user information nowhere.
        for line in requests where Self.carries(line, Self.password) {
            #expect(Self.host(of: line) == servers.a.authority, "sent to another origin: \(line)")
        }
        #expect(!requests.contains { $0.contains("location-pw") }, "the Location's password was sent")
        #expect(requests.contains { Self.host(of: $0) == targetAuthority && $0.hasPrefix("POST") })
        // The helper was asked about the origin that answered 401, and rejected nothing.
        #expect(calls.contains("get http://\(targetAuthority)"), "\(calls)")
        #expect(!calls.contains { $0.hasPrefix("erase") }, "\(calls)")
        #expect(calls.allSatisfy { $0.hasPrefix("get") || $0 == "store http://\(servers.a.authority)" }, "\(calls)")
        let expected = [
            "warning: redirecting to http://\(targetAuthority)/authpost/small.git/",
            "fatal: could not read Username for 'http://\(targetAuthority)': terminal prompts disabled",
        ]
        // (The push is a dry run: it reads the advertisement and sends no POST, so meets no 401.)
        for (name, output) in outputs where name != "batch" && name != "batch --json" && name != "push --record" {
            #expect(output.status == 128, "\(name)")
            #expect(output.errorText.split(separator: "\n").suffix(2).map(String.init) == expected, "\(name)")
        }
        try Self.expectNowhere(Self.password, outputs: outputs, directory: directory)

        // git on the same URL: the same words where git meets the same situation.
        let theirs = try git(["ls-remote", url], environment: home.environment, check: false)
        // (git sends A's password to `localhost`, which is A's server and takes it.)
        if source == .url && target != .otherName {
            #expect(theirs.status == 128)
            #expect(Array(theirs.errorText.split(separator: "\n").prefix(2).map(String.init)) == expected)
            #expect(outputs[0].1.errorText == expected.joined(separator: "\n") + "\n")
        }
    }

    /// D2, D3, D4 and the smaller ones: a password in the URL, a redirect on the same origin
    /// (its `Location` with and without user information), then success or an error after the
    /// redirect. The warning, every error, the `From` line, the clone's directory, batch text and
    /// JSON, traces and recordings show no password, and say what git says.
    @Test func passwordsAreNeverShown() throws {
        let servers = try Self.servers.get()
        let a = servers.a
        let home = try CredentialHome(answeringFor: "http://\(a.authority)")
        let environment = home.environment
        let base = "http://\(Self.user):\(Self.password)@\(a.authority)"
        for path in [
            "/redirect/small.git", "/cross-userinfo/\(a.authority)/git/small.git",
            "/cross/\(a.authority)/hostile/html-post/small.git", "/cross/\(a.authority)/nothing/small.git",
            "/cross/\(a.authority)/status/500/small.git",
        ] {
            let url = base + path
            let directory = try TemporaryDirectory()
            let outputs = try Self.runEverything(url, in: directory, environment: environment)
            try Self.expectNowhere(Self.password, outputs: outputs, directory: directory)
            // What git prints for ls-remote, gitwire prints (html-post: git's message is its
            // remote helper's own; gitwire's names the URL, without the password).
            let theirs = try git(["ls-remote", url], environment: environment, check: false)
            #expect(!theirs.errorText.contains(Self.password), "git shows it too: \(theirs.errorText)")
            if !path.contains("html-post") {
                #expect(outputs[0].1.errorText == theirs.errorText, "\(path)")
                #expect(outputs[0].1.text == theirs.text, "\(path)")
            } else {
                #expect(
                    outputs[0].1.errorText.hasSuffix(
                        "fatal: unable to access 'http://\(a.authority)/hostile/html-post/small.git/': the server answered with content type 'text/html', not git's\n"
                    ))
            }
        }

        // D3: fetch's `From` line, as git anonymises it.
        let directory = try TemporaryDirectory()
        let url = base + "/git/small.git"
        for name in ["ours.git", "theirs.git"] {
            try git(["init", "-q", "--bare", directory.appending(name)])
        }
        let ours = try gitwire(
            ["fetch", url, directory.appending("ours.git"), "+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"],
            environment: environment)
        let theirs = try git(
            ["fetch", url, "+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"],
            in: directory.appending("theirs.git"),
            environment: environment)
        #expect(ours.status == 0, "\(ours.errorText)")
        let fromLine = "From http://\(a.authority)/git/small\n"
        #expect(ours.errorText.hasPrefix(fromLine), "\(ours.errorText)")
        #expect(theirs.errorText.hasPrefix(fromLine), "\(theirs.errorText)")
        #expect(ours.errorText.split(separator: "\n").first == theirs.errorText.split(separator: "\n").first)

        // D4: the directory a clone picks, as git picks it (here both fail after naming it).
        for clone in ["http://\(Self.user):\(Self.password)@localhost:\(a.port)/", base + "/git/small.git/"] {
            let mine = try TemporaryDirectory()
            let theirDirectory = try TemporaryDirectory()
            let cloned = try gitwire(["clone", "--bare", clone], in: mine.path, environment: environment)
            let gitCloned = try git(
                ["clone", "--bare", clone], in: theirDirectory.path, environment: environment, check: false)
            #expect(cloned.errorText == gitCloned.errorText)
            #expect(cloned.status == gitCloned.status)
            #expect(!cloned.errorText.contains(Self.password))
            let names = try FileManager.default.contentsOfDirectory(atPath: mine.path)
            #expect(names == (try FileManager.default.contentsOfDirectory(atPath: theirDirectory.path)))
            #expect(!names.contains { $0.contains(Self.password) })
        }

        // --get-url (git prints the URL as given, password and all; gitwire never prints one).
        let gotURL = try gitwire(["ls-remote", "--get-url", url], environment: environment)
        #expect(gotURL.text == "http://\(a.authority)/git/small.git\n")

        // record-proxy's banner.
        let out = try TemporaryDirectory()
        let proxy = try gitwire(
            ["record-proxy", "--listen=127.0.0.1:0", "--upstream=\(base)", "--out=\(out.path)", "--idle-timeout=1"],
            environment: environment)
        #expect(proxy.errorText.contains("forwarding to http://\(a.authority)\n"), "\(proxy.errorText)")
        #expect(!proxy.errorText.contains(Self.password))
    }

    /// D20: a server that lets the discovery through and answers the `POST` with 401
    /// (`/authpost/`), and one that wants credentials for everything (`/auth/`), with the password
    /// in the URL or from the helper: gitwire gets through, and the server answers 401 exactly as
    /// often as it does to git (once a session: afterwards the credential goes with every request).
    @Test(arguments: ["authpost", "auth"], ["url", "helper"])
    func asManyUnauthorizedAnswersAsGit(route: String, source: String) throws {
        let servers = try Self.servers.get()
        let a = servers.a
        let home = try CredentialHome(answeringFor: "http://\(a.authority)")
        let url = "http://\(source == "url" ? "\(Self.user):\(Self.password)@" : "")\(a.authority)/\(route)/big.git"
        for version in ["0", "2"] {
            let directory = try TemporaryDirectory()
            func unauthorized(_ run: () throws -> ProcessOutput) throws -> (ProcessOutput, Int, Int) {
                let before = a.loggedRequests().count
                let output = try run()
                let requests = a.loggedRequests().dropFirst(before)
                return (output, requests.filter { $0.contains("status=401") }.count, requests.count)
            }
            let (ours, our401s, ourRequests) = try unauthorized {
                try gitwire(
                    ["clone", "-q", "--bare", "--protocol-version=\(version)", url, directory.appending("mine.git")],
                    environment: home.environment)
            }
            let (theirs, their401s, _) = try unauthorized {
                try git(
                    [
                        "-c", "protocol.version=\(version)", "clone", "-q", "--bare", url,
                        directory.appending("theirs.git"),
                    ],
                    environment: home.environment, check: false)
            }
            #expect(theirs.status == 0, "\(theirs.errorText)")
            #expect(ours.status == 0, "v\(version): \(ours.errorText)")
            #expect(our401s == their401s, "v\(version): \(our401s) 401s, git \(their401s)")
            #expect(our401s == 1)
            #expect(ourRequests >= 3)
            #expect(
                try gitText(["for-each-ref"], in: directory.appending("mine.git"))
                    == gitText(["for-each-ref"], in: directory.appending("theirs.git")))
        }
        let calls = home.calls()
        if source == "helper" {
            #expect(
                calls.allSatisfy { $0 == "get http://\(a.authority)" || $0 == "store http://\(a.authority)" },
                "\(calls)")
        }
    }

    /// `--batch` with many remotes answering 401 at once: the credential helper (or git's prompt
    /// on a terminal) runs for one at a time, never overlapping, and every remote is listed.
    @Test func credentialPromptsRunOneAtATime() throws {
        let servers = try Self.servers.get()
        let a = servers.a
        let home = try CredentialHome(answeringFor: "http://\(a.authority)", delay: "0.2")
        let directory = try TemporaryDirectory()
        let urls = (0..<8).map { "http://\(a.authority)/auth/\(["small.git", "big.git"][$0 % 2])?\($0)" }
        let list = directory.appending("urls")
        try (urls.joined(separator: "\n") + "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let result = try gitwire(
            ["ls-remote", "--batch", list, "--json", "--jobs-per-host=8"], environment: home.environment)
        #expect(result.status == 0, "\(result.text)")
        #expect(result.text.split(separator: "\n").count == urls.count)
        #expect(!result.text.contains("\"error\""))
        let calls = home.calls()
        #expect(!calls.contains("overlap"), "\(calls)")
        #expect(calls.filter { $0.hasPrefix("get") }.count == urls.count, "\(calls)")
    }
}

/// A `git credential fill` whose connection has given up (here `--deadline` in `--batch`) is
/// ended and reaped, and a call still waiting for its turn never starts: gitwire returns at its
/// deadline instead of waiting for the helper (it used to wait as long as each helper ran, one
/// after the other, and run the waiting ones for connections long gone).
@Suite("http credentials abandoned", .serialized)
struct AbandonedCredentialCallTests {
    @Test func abandonedCredentialCallsAreEnded() throws {
        let servers = try HTTPCredentialTests.servers.get()
        let a = servers.a
        let directory = try TemporaryDirectory()
        let log = directory.appending("helper.log")
        let script = directory.appending("helper.sh")
        // Logs its pid, then becomes a long sleep (still the helper git started, still holding
        // git's pipes and gitwire's standard error): it answers nothing before gitwire's deadline.
        let seconds = scaledForSlowRuns(seconds: 90)
        try writeExecutable(
            script,
            """
            #!/bin/sh
            cat > /dev/null
            echo "$$" >> '\(log)'
            exec sleep \(seconds)

            """)
        let config = directory.appending("gitconfig")
        try "[credential]\n\thelper = \(script)\n".write(toFile: config, atomically: true, encoding: .utf8)
        let environment = reproducibleGitEnvironment.merging([
            "HOME": directory.path, "GIT_CONFIG_GLOBAL": config, "GIT_TERMINAL_PROMPT": "0",
        ]) { $1 }
        let urls = (0..<3).map { "http://\(a.authority)/auth/small.git?\($0)" }
        let list = directory.appending("urls")
        try (urls.joined(separator: "\n") + "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let helpers = { ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n") }
        defer {
            for pid in helpers() { if let pid = Int32(pid) { kill(pid, SIGKILL) } }
        }
        let result = try gitwire(["ls-remote", "--batch", list, "--deadline=2"], environment: environment)
        let started = helpers().compactMap { Int32($0) }
        // Every helper that started was still running when gitwire returned: gitwire did not
        // wait for any of them.
        #expect(!started.isEmpty)
        for pid in started { #expect(kill(pid, 0) == 0, "helper \(pid) had ended: gitwire waited for it") }
        #expect(result.status == 1, "\(result.text)\(result.errorText)")
        let errors = result.text.split(separator: "\n").filter { $0.hasPrefix("error: ") }
        #expect(errors.count == urls.count, "\(result.text)")
        #expect(errors.allSatisfy { $0.contains("(deadline)") }, "\(result.text)")
    }
}

/// What credential helpers are told about a repository with `credential.useHttpPath`: the
/// repository's path, percent-decoded, as git tells them (gitwire used to send the request's:
/// `auth/small.git/info/refs` for the discovery and `…/git-upload-pack` for a `POST`, so that a
/// credential git stored was never found, and one stored here never found by git), and the
/// `could not read Username for '<url>'` that follows names the repository as git's does.
@Suite("http credential paths", .serialized)
struct CredentialPathTests {
    @Test(arguments: ["auth/small.git/", "auth/my%20r%C3%A9po.git", "authpost/small.git"])
    func helpersAreToldTheRepositoryPath(path: String) throws {
        let servers = try HTTPCredentialTests.servers.get()
        let directory = try TemporaryDirectory()
        let log = directory.appending("helper.log")
        let script = directory.appending("helper.sh")
        try writeExecutable(
            script,
            """
            #!/bin/sh
            { echo "-- $1"; cat; } >> '\(log)'
            exit 0

            """)
        let config = directory.appending("gitconfig")
        try "[credential]\n\thelper = \(script)\n\tuseHttpPath = true\n".write(
            toFile: config, atomically: true, encoding: .utf8)
        let environment = reproducibleGitEnvironment.merging([
            "HOME": directory.path, "GIT_CONFIG_GLOBAL": config, "GIT_TERMINAL_PROMPT": "0",
        ]) { $1 }
        let url = "http://\(servers.a.authority)/\(path)"
        let read = { () -> String in
            defer { try? FileManager.default.removeItem(atPath: log) }
            return (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        }
        let theirs = try git(["ls-remote", url], environment: environment, check: false)
        let gitCalls = read()
        let ours = try gitwire(["ls-remote", url], environment: environment)
        let ourCalls = read()
        #expect(gitCalls.contains("path="), "\(gitCalls)")
        #expect(ourCalls == gitCalls)
        let gitFirstLine = theirs.errorText.split(separator: "\n").first.map(String.init)
        #expect(gitFirstLine?.hasPrefix("fatal: could not read Username for ") == true, "\(theirs.errorText)")
        #expect(ours.errorText.split(separator: "\n").first.map(String.init) == gitFirstLine)
        #expect(ours.status == 128)
    }
}

/// A credential helper that answers with `url=` for another origin: `git credential fill` then
/// prints that origin, and the credential belongs to it. git 2.39 sends it to the origin that
/// asked all the same; gitwire sends it nowhere and fails (it used to send it, as git). An
/// answer whose `url=` names the same origin (another path) is used as before.
@Suite("http credentials for another origin", .serialized)
struct CredentialOriginTests {
    @Test(arguments: [false, true])
    func answerForAnotherOriginIsNotSent(sameOrigin: Bool) throws {
        let servers = try HTTPCredentialTests.servers.get()
        let a = servers.a
        let answered = sameOrigin ? "http://\(a.authority)/elsewhere.git" : "http://\(servers.b.authority)/"
        let directory = try TemporaryDirectory()
        let script = directory.appending("helper.sh")
        try writeExecutable(
            script,
            """
            #!/bin/sh
            cat > /dev/null
            [ "$1" = get ] && printf 'url=%s\\nusername=%s\\npassword=%s\\n' '\(answered)' \
            '\(HTTPCredentialTests.user)' '\(HTTPCredentialTests.password)'
            exit 0

            """)
        let config = directory.appending("gitconfig")
        try "[credential]\n\thelper = \(script)\n".write(toFile: config, atomically: true, encoding: .utf8)
        let environment = reproducibleGitEnvironment.merging([
            "HOME": directory.path, "GIT_CONFIG_GLOBAL": config, "GIT_TERMINAL_PROMPT": "0",
        ]) { $1 }
        let url = "http://\(a.authority)/auth/small.git"
        var mark = servers.mark()
        let theirs = try git(["ls-remote", url], environment: environment, check: false)
        let gitRequests = servers.requests(since: mark)
        mark = servers.mark()
        let ours = try gitwire(["ls-remote", url], environment: environment)
        let ourRequests = servers.requests(since: mark)
        // git sends the password to the origin that asked, whatever the helper said.
        #expect(theirs.status == 0, "\(theirs.errorText)")
        #expect(gitRequests.contains { HTTPCredentialTests.carries($0, HTTPCredentialTests.password) })
        if sameOrigin {
            #expect(ours.status == 0, "\(ours.errorText)")
            #expect(ours.text == theirs.text)
        } else {
            #expect(ours.status == 128)
            #expect(ours.errorText.contains("credential helper answered for another origin"), "\(ours.errorText)")
            #expect(
                !ourRequests.contains { HTTPCredentialTests.carries($0, HTTPCredentialTests.password) },
                "\(ourRequests)")
            #expect(!ours.errorText.contains(HTTPCredentialTests.password))
        }
    }
}

/// A URL whose user name, password or path holds a percent-encoded newline: git refuses it before
/// it connects (`warning: url contains a newline in its <part> component` and `fatal: credential
/// url cannot be parsed`), since the credential protocol is line by line (`u%0Ahost=evil` would
/// tell the helpers another host). gitwire used to leave the user name out of what it asked the
/// helpers, so that `GIT_ASKPASS` was asked for another user name, and went on to the server.
/// Against A (which asks for credentials), with a logging askpass and helper: nothing reaches
/// either, nor the server, and the messages are git's (without the user information, which git
/// shows, password included).
@Suite("http URLs with a newline", .serialized)
struct CredentialURLNewlineTests {
    /// Servers of this suite's own: it asserts that no request at all reaches them, which other
    /// suites' requests to shared ones (run at the same time) made fail now and then.
    static let servers = Result { try HTTPCredentialTests.Servers() }

    @Test(arguments: [
        ("u%0Ahost=evil@", "/auth/small.git", "username"), ("u:pw%0a@", "/auth/small.git", "password"),
        ("u@", "/auth/sm%0aall.git", "path"), ("", "/auth/small.git?x=%0A", "path"),
    ])
    func refusedAsGitRefusesThem(userInfo: String, path: String, component: String) throws {
        let servers = try Self.servers.get()
        let home = try HTTPCredentialTests.CredentialHome(answeringFor: "http://\(servers.a.authority)")
        let prompts = home.directory.appending("askpass.log")
        let askpass = home.directory.appending("askpass.sh")
        try writeExecutable(askpass, "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '\(prompts)'\necho x\n")
        let environment = home.environment.merging(["GIT_ASKPASS": askpass]) { $1 }
        let url = "http://\(userInfo)\(servers.a.authority)\(path)"
        let shown = "http://\(servers.a.authority)\(path)/"
        var mark = servers.mark()
        let theirs = try git(["ls-remote", url], environment: environment, check: false)
        #expect(servers.requests(since: mark).isEmpty)
        mark = servers.mark()
        let ours = try gitwire(["ls-remote", url], environment: environment)
        #expect(servers.requests(since: mark).isEmpty)
        #expect(home.calls().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: prompts))
        let expected = """
            warning: url contains a newline in its \(component) component: \(shown)
            fatal: credential url cannot be parsed: \(shown)

            """
        // git's remote helper dies with 128; git itself then sometimes dies writing to it (141).
        #expect([128, 141].contains(theirs.status), "\(theirs.errorText)")
        #expect(
            (userInfo.isEmpty ? theirs.errorText : theirs.errorText.replacingOccurrences(of: userInfo, with: ""))
                == expected)
        #expect(ours.status == 128)
        #expect(ours.errorText == expected)
        #expect(ours.text.isEmpty)
    }
}
