import GitWire
import GitWireFuzzTargets
import GitWireTestSupport
import Testing

/// For any URL with a password and any sequence of redirects and answers, no request goes to an
/// origin with another origin's credential and nothing gitwire shows holds the password: checked
/// on thousands of generated sessions (``CredentialTrial``, as the `credentials` fuzz target
/// checks it on the fuzzer's), and on URLs of every form for the one function that shows a URL.
@Suite("credential properties")
struct CredentialPropertyTests {
    static let hosts = [
        "127.0.0.1:8080", "127.0.0.1:8081", "localhost:8080", "LocalHost:8080", "127.0.0.2:8080", "127.0.0.1",
        "127.0.0.1:80", "127.0.0.1:443", "[::1]:8080", "[::1]", "example.org", "EXAMPLE.org:443", "host-b.test:8080",
    ]
    static let paths = [
        "/repo.git", "/a/b/repo.git/", "/", "", "/r%20x.git", "/u@h/repo.git", "/x?y=1", "/~u/r", "/a#f",
    ]

    /// A password as a URL holds it: each byte plain where the user information allows it (`:`
    /// and `@` included), else escaped; or every byte escaped.
    static func written(_ password: [UInt8], escapeAll: Bool) -> String {
        var text = ""
        for byte in password {
            let plain =
                (0x30...0x39).contains(byte) || (0x41...0x5a).contains(byte) || (0x61...0x7a).contains(byte)
                || "-._~:@!$&'()*+,;=".utf8.contains(byte)
            text += plain && !escapeAll ? String(UnicodeScalar(byte)) : "%" + String(byte, radix: 16).leftPadded(to: 2)
        }
        return text
    }

    static func randomPassword(_ random: inout SeededGenerator) -> [UInt8] {
        let alphabet = Array("abcXYZ019:@/?#%&=+ ~".utf8) + [0x00, 0x0a, 0x7f, 0xc3, 0xa9, 0xe2, 0x80, 0x8f]
        let tail = (0..<Int.random(in: 0...12, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
        return Array(CredentialTrial.marker.utf8) + tail
    }

    static func randomTrial(_ random: inout SeededGenerator) -> CredentialTrial {
        var answers: [CredentialTrial.Answer] = []
        for _ in 0..<Int.random(in: 0...14, using: &random) {
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:
                let host = hosts.randomElement(using: &random)!
                let scheme = Bool.random(using: &random) ? "https" : "http"
                let path = paths.randomElement(using: &random)!
                let suffix = Int.random(in: 0..<4, using: &random) == 0 ? "" : "/info/refs?service=git-upload-pack"
                let target: String
                switch Int.random(in: 0..<4, using: &random) {
                case 0: target = "/" + path.drop { $0 == "/" } + suffix
                case 1: target = "\(scheme)://\(host)\(path)\(suffix)"
                case 2: target = "\(scheme)://evil:\(CredentialTrial.locationPassword)@\(host)\(path)\(suffix)"
                default: target = "//\(host)\(path)\(suffix)"
                }
                answers.append(.redirect(target: target, carry: Bool.random(using: &random)))
            case 5, 6: answers.append(.unauthorized)
            case 7, 8: answers.append(.ok)
            default: answers.append(.status([404, 500, 403].randomElement(using: &random)!))
            }
        }
        let hasPassword = Int.random(in: 0..<4, using: &random) != 0
        return CredentialTrial(
            secure: Bool.random(using: &random), hostAndPort: hosts.randomElement(using: &random)!,
            user: ["alice", "bob", "u", "x-y"].randomElement(using: &random)!,
            writtenPassword: hasPassword
                ? written(randomPassword(&random), escapeAll: Int.random(in: 0..<4, using: &random) == 0) : nil,
            path: paths.randomElement(using: &random)!, answers: answers)
    }

    /// Thousands of sessions: no request carries another origin's credential (nor a password a
    /// redirect carried), no approval or rejection is about the wrong origin, and no message,
    /// warning, URL, directory name, description or dump holds the password.
    @Test(arguments: [1, 2, 3, 4])
    func noOtherOriginAndNoOutputSeesTheSecret(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        for _ in 0..<600 {
            let trial = Self.randomTrial(&random)
            let problems = trial.run()
            #expect(problems.isEmpty, "\(trial): \(problems)")
            if !problems.isEmpty { return }
        }
    }

    /// The sessions of issue 19 themselves, among the generated ones: a password in the URL or
    /// from the helper, then a redirect to another port, host name, host or scheme.
    @Test func theReportedSessions() {
        let toOthers = [
            "http://127.0.0.1:8081/repo.git/info/refs?service=git-upload-pack",
            "http://localhost:8080/repo.git/info/refs?service=git-upload-pack",
            "http://127.0.0.2:8080/repo.git/info/refs?service=git-upload-pack",
            "https://127.0.0.1:8080/repo.git/info/refs?service=git-upload-pack",
        ]
        for target in toOthers {
            for (password, first) in [("SECRET-pw", [CredentialTrial.Answer]()), (nil, [.unauthorized])] {
                let trial = CredentialTrial(
                    secure: false, hostAndPort: "127.0.0.1:8080", user: "alice", writtenPassword: password,
                    path: "/repo.git",
                    answers: first + [.redirect(target: target, carry: true), .ok, .unauthorized, .ok, .ok])
                #expect(trial.run().isEmpty, "\(trial): \(trial.run())")
            }
        }
    }

    /// The one function that shows a URL, on URLs of every form git takes with user information
    /// (`scheme://user:password@host…`, `user:password@host:path`), the password written in any
    /// of the ways git reads it: what it shows never holds the password, and neither do the
    /// errors made about such URLs (a port or host no URL has).
    @Test func shownURLsNeverHoldThePassword() {
        var random = SeededGenerator(seed: 19)
        for _ in 0..<1000 {
            let password = Self.written(Self.randomPassword(&random), escapeAll: Bool.random(using: &random))
            let host = Self.hosts.randomElement(using: &random)!
            let path = Self.paths.randomElement(using: &random)!
            let user = ["alice", "", "a@b", "x%40y"].randomElement(using: &random)!
            let forms = [
                "http://\(user):\(password)@\(host)\(path)", "https://\(user):\(password)@\(host)\(path)",
                "HTTP://\(user):\(password)@\(host)\(path)", "git://\(user):\(password)@\(host)\(path)",
                "ssh://\(user):\(password)@\(host)\(path)", "\(user):\(password)@\(host):\(path)",
                "http://\(user):\(password)@\(host):99999\(path)", "http://\(user):\(password)@\(host):x\(path)",
                "http://\(user):\(password)@\(host) x\(path)", "https://\(user):\(password)@[::1\(path)",
            ]
            for url in forms {
                var shown = [
                    RemoteURL.withoutCredentials(url), RemoteURL.cloneDirectoryName(for: url, bare: true) ?? "",
                ]
                do {
                    let parsed = try RemoteURL(url)
                    shown += [parsed.description, "\(parsed)", String(reflecting: parsed)]
                } catch {
                    shown.append("\(error)")
                }
                do {
                    let location = try SmartHTTP.Location(url)
                    shown += [location.base, location.url, location.hostAndPort, "\(location)"]
                } catch {
                    shown.append("\(error)")
                }
                shown.append(HTTPError(.status(500), url: url).description)
                shown.append(HTTPError(.badRedirect(url), url: url).description)
                shown.append("\(BatchListing(index: 0, url: url, result: .failure(CancelledError())))")
                for text in shown where text.contains(CredentialTrial.marker) || text.contains(password) {
                    Issue.record("\(url) shown as \(text)")
                    return
                }
            }
        }
    }

    /// git's directory names for clones (`git_url_basename`), user information dropped: the
    /// same names git picks, checked against `git clone` itself in `HTTPCredentialTests`.
    @Test(arguments: [
        ("http://user:pw@localhost/", "localhost.git"), ("http://user:pw@localhost:8080/", "localhost.git"),
        ("https://u:p@h/a/repo.git/", "repo.git"), ("https://u:p@h/a/repo/.git", "repo.git"),
        ("user@host:path/to/r.git", "r.git"), ("/srv/a b.git", "a b.git"), ("host:foo/.git", "foo.git"),
        ("http://a@b:c@host/x", "x.git"), ("http://h/x%40y", "x%40y.git"), ("/foo/bar:2222.git", "2222.git"),
        ("repo\t\u{1}name", "repo name.git"),
    ])
    func cloneDirectoryNames(_ url: String, _ expected: String) {
        #expect(RemoteURL.cloneDirectoryName(for: url, bare: true) == expected)
    }

    @Test func noDirectoryNameIsLeft() {
        #expect(RemoteURL.cloneDirectoryName(for: "/.git", bare: true) == nil)
        #expect(RemoteURL.cloneDirectoryName(for: "/", bare: true) == nil)
    }
}

/// Where a redirect leads: gitwire resolves `Location` against the request's URL itself (libcurl
/// follows none), and must land where libcurl would have (git follows with libcurl): checked
/// against libcurl's own URL API on generated references (absolute, `//host`, `/path`,
/// `?query`, relative paths, fragments, spaces). Where dot and empty segments meet (`..//x`,
/// `x/..`), libcurl 7.88 departs from RFC 3986 here and there; gitwire follows the RFC, and the
/// origin, which decides where a credential may go, is libcurl's or gitwire refuses the target.
@Suite("redirect resolution")
struct RedirectResolutionTests {
    @Test(arguments: [false, true])
    func resolvesAsLibcurl(withDotSegments: Bool) throws {
        var random = SeededGenerator(seed: withDotSegments ? 8 : 7)
        let bases = [
            "http://127.0.0.1:8080/a/b/repo.git/info/refs?service=git-upload-pack", "https://h/x/info/refs?q=1",
            "http://[::1]:81/info/refs", "http://h/", "http://h:80/a/b",
        ]
        let pieces =
            ["a", "b", "info", "refs", "x.git", "%20", "a b", "~u"] + (withDotSegments ? [".", "..", ""] : [])
        for _ in 0..<2000 {
            let path = (1...Int.random(in: 1...5, using: &random)).map { _ in pieces.randomElement(using: &random)! }
                .joined(separator: "/")
            let query = ["", "?service=git-upload-pack", "?a=b/../c"].randomElement(using: &random)!
            let fragment = Bool.random(using: &random) ? "#frag" : ""
            let reference: String
            switch Int.random(in: 0..<7, using: &random) {
            case 0: reference = "http://other:9/" + path + query + fragment
            case 1: reference = "//other:9/" + path + query + fragment
            case 2: reference = "/" + path + query + fragment
            case 3: reference = query.isEmpty ? "?x=1" : query
            case 4: reference = (withDotSegments ? "../" : "") + path + query + fragment
            case 5: reference = "HTTPS://Other/" + path
            default: reference = path + query + fragment
            }
            let base = bases.randomElement(using: &random)!
            let ours = SmartHTTP.resolveRedirect(reference, against: base)
            // libcurl keeps the fragment in the URL; it never sends it.
            guard
                let theirs = libcurlResolvedRedirect(reference, against: base)?.split(separator: "#").first.map(
                    String.init)
            else {
                // libcurl refuses it (a host no URL has): gitwire sends no request there either.
                #expect(ours.flatMap { try? SmartHTTP.Location($0) } == nil, "\(reference) from \(base)")
                continue
            }
            if withDotSegments {
                let origin = ours.flatMap { try? SmartHTTP.Location($0) }?.origin
                let theirOrigin = try SmartHTTP.Location(theirs).origin
                #expect(origin == nil || origin == theirOrigin, "\(reference) from \(base)")
            } else {
                #expect(ours == theirs, "\(reference) from \(base)")
            }
        }
    }
}
