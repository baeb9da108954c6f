import GitWire

/// One smart HTTP session's handling of credentials, run without a network: a repository URL
/// carrying `user:password@`, then what the server answers, one request at a time (redirects of
/// the discovery request to other origins or paths, 401s, successes, errors), with a credential
/// helper that answers for the URL's own origin only. It drives ``SmartHTTP/Session`` exactly as
/// the HTTP transport does and collects every request (its origin and the credential it carried)
/// and every text gitwire shows about the session (messages, warnings, the URL in `From` lines and
/// batch output, the clone directory name, descriptions and dumps of the values).
///
/// ``run()`` returns the rules that broke: a request carrying a credential of another origin, a
/// password the server wrote into a redirect being used, an approval or rejection for the wrong
/// origin, or a shown text holding the password. The `credentials` fuzz target and
/// `CredentialPropertyTests` check it on inputs of their own.
public struct CredentialTrial: Sendable, CustomStringConvertible {
    /// Every password of a trial starts with this, and nothing else of a trial can hold it (host
    /// names, paths and user names are lowercase).
    public static let marker = "SECRET"
    /// The password the helper gives for the URL's origin.
    public static let helperPassword = marker + "-from-helper"
    /// The password a redirect's `Location` carries: the server's, never to be sent.
    public static let locationPassword = "location-pw"

    /// `http(s)://`.
    public var secure: Bool
    /// The host and port as written (`127.0.0.1:8080`).
    public var hostAndPort: String
    /// The user name as written.
    public var user: String
    /// The password as written in the URL (percent-encoded as the test chose), or nil for a URL
    /// without user information.
    public var writtenPassword: String?
    /// The repository path (`/repo.git`).
    public var path: String
    /// What the server answers, one request after another.
    public var answers: [Answer]

    /// One answer of the server.
    public enum Answer: Sendable, CustomStringConvertible {
        /// A redirect to `target` (absolute, `//host…`, or a path). `carry`: the server writes the
        /// user information the request carried into the `Location` (as a server that was sent a
        /// password can).
        case redirect(target: String, carry: Bool)
        /// 401 (with `WWW-Authenticate: Basic`).
        case unauthorized
        /// 200: the discovery answer, then each `POST`'s.
        case ok
        /// Another status.
        case status(Int)

        /// The answer in short.
        public var description: String {
            switch self {
            case .redirect(let target, let carry): "redirect(\(target)\(carry ? ", carrying" : ""))"
            case .unauthorized: "401"
            case .ok: "200"
            case .status(let code): "\(code)"
            }
        }
    }

    /// A trial.
    public init(
        secure: Bool, hostAndPort: String, user: String, writtenPassword: String?, path: String, answers: [Answer]
    ) {
        self.secure = secure
        self.hostAndPort = hostAndPort
        self.user = user
        self.writtenPassword = writtenPassword
        self.path = path
        self.answers = answers
    }

    /// The repository URL.
    public var url: String {
        let userInfo = writtenPassword.map { "\(user):\($0)@" } ?? ""
        return "\(secure ? "https" : "http")://\(userInfo)\(hostAndPort)\(path)"
    }

    /// The URL and the answers.
    public var description: String { "\(url) \(answers)" }

    /// Runs the trial; returns the broken rules (empty when all held).
    public func run() -> [String] {
        var run = Run(trial: self)
        run.go()
        return run.problems
    }

    private struct Run {
        let trial: CredentialTrial
        var problems: [String] = []
        var shown: [String] = []

        init(trial: CredentialTrial) { self.trial = trial }

        mutating func go() {
            let url = trial.url
            shown += [
                RemoteURL.withoutCredentials(url), RemoteURL.cloneDirectoryName(for: url, bare: true) ?? "",
                RemoteURL.cloneDirectoryName(for: url, bare: false) ?? "",
            ]
            do {
                let parsed = try RemoteURL(url)
                shown += [parsed.description, "\(parsed)", String(reflecting: parsed), dumped(parsed)]
            } catch {
                shown.append("\(error)")
            }
            let repository: SmartHTTP.Location
            var session: SmartHTTP.Session
            do {
                repository = try SmartHTTP.Location(url)
                session = try SmartHTTP.Session(repository, service: .uploadPack)
            } catch {
                shown.append("\(error)")
                checkShown()
                return
            }
            shown += [
                "\(repository)", String(reflecting: repository), dumped(repository), repository.base, repository.url,
            ]
            let home = repository.origin
            var discovering = true
            answers: for answer in trial.answers {
                let current: SmartHTTP.Location
                do {
                    current = discovering ? session.discovery : try session.serviceLocation
                } catch {
                    shown.append("\(error)")
                    break
                }
                shown += [current.url, current.base]
                let carried = session.credential(for: current.origin)
                checkSent(carried, to: current.origin, home: home, repository: repository)
                switch answer {
                case .redirect(let target, let carry):
                    guard discovering else {
                        // A POST is never redirected: git's error.
                        shown.append(HTTPError(.status(302), url: session.displayURL).description)
                        break answers
                    }
                    checkApproval(session.accepted(carried, at: current.origin), at: current.origin)
                    let header = location(target, carrying: carry ? carried : nil)
                    shown.append(RemoteURL.withoutCredentials(header))
                    do {
                        try session.redirect(to: header)
                    } catch {
                        switch error {
                        case .tooMany:
                            let tooMany = HTTPTransferError(
                                reason: .transfer, code: 47, message: "Maximum (20) redirects followed")
                            shown.append(HTTPError(.transfer(tooMany), url: session.displayURL).description)
                        case .unsupported(let target):
                            shown.append(HTTPError(.badRedirect(target), url: session.displayURL).description)
                        }
                        break answers
                    }
                case .unauthorized:
                    switch session.unauthorized(at: current, helperAllowed: true) {
                    case .askHelper(let location, let username):
                        if location.origin != current.origin {
                            problems.append("the helpers were asked about \(location.origin) for \(current.origin)")
                        }
                        guard location.origin == home else {
                            // The helper knows nothing there: git's message.
                            let scheme = location.isSecure ? "https" : "http"
                            shown.append(
                                "could not read Username for '\(scheme)://\(location.hostAndPort)': terminal prompts disabled"
                            )
                            break answers
                        }
                        session.helperAnswered(
                            username: username ?? "helper-user", password: Secret(CredentialTrial.helperPassword),
                            for: location)
                        // Sent again, with what the helper said.
                        checkSent(
                            session.credential(for: current.origin), to: current.origin, home: home,
                            repository: repository)
                    case .fail(let rejected):
                        if let rejected, rejected.origin != current.origin {
                            problems.append(
                                "a credential for \(rejected.origin) rejected after a 401 from \(current.origin)")
                        }
                        if let rejected, rejected.password?.revealed != CredentialTrial.helperPassword {
                            problems.append("a credential the helpers did not give was rejected with them")
                        }
                        shown.append(HTTPError(.authenticationFailed, url: session.displayURL).description)
                        break answers
                    }
                case .ok:
                    checkApproval(session.accepted(carried, at: current.origin), at: current.origin)
                    if discovering {
                        do {
                            if let moved = try session.discoverySucceeded() { shown.append("redirecting to \(moved)") }
                        } catch let error as SmartHTTP.Session.BadRedirect {
                            shown.append(HTTPError(.badRedirect(error.target), url: error.asked).description)
                            break answers
                        } catch {
                            shown.append("\(error)")
                            break answers
                        }
                        discovering = false
                    }
                case .status(let code):
                    shown.append(HTTPError(.status(code), url: session.displayURL).description)
                    shown.append(HTTPError(.repositoryNotFound, url: session.displayURL).description)
                    break answers
                }
                shown += [session.displayURL, session.discovery.url]
            }
            shown += [session.displayURL, session.discovery.url, "\(session)", dumped(session)]
            checkShown()
        }

        /// A request to `origin` carried `credential`: it must be that origin's, and a password
        /// goes only where it was given.
        mutating func checkSent(
            _ credential: HTTPCredential?, to origin: HTTPOrigin, home: HTTPOrigin, repository: SmartHTTP.Location
        ) {
            guard let credential else { return }
            if credential.origin != origin {
                problems.append("a credential for \(credential.origin) sent to \(origin)")
            }
            let password = credential.password?.revealed
            if password == CredentialTrial.locationPassword {
                problems.append("the password a redirect carried was sent to \(origin)")
            }
            if let password, password.contains(CredentialTrial.marker), origin != home {
                problems.append("the user's password sent to \(origin), not \(home)")
            }
            if let password, password == repository.password?.revealed, origin != home {
                problems.append("the URL's password sent to \(origin)")
            }
        }

        mutating func checkApproval(_ approved: HTTPCredential?, at origin: HTTPOrigin) {
            guard let approved else { return }
            if approved.origin != origin { problems.append("approved \(approved.origin) after a request to \(origin)") }
            if approved.password?.revealed != CredentialTrial.helperPassword {
                problems.append("approved a credential the helpers did not give")
            }
        }

        /// The `Location` the server sends for `target`: with `carrying`, the request's user
        /// information written into an absolute target (a server that echoes what it was sent).
        func location(_ target: String, carrying: HTTPCredential?) -> String {
            guard let carrying, target.hasPrefix("//") || target.contains("://") else { return target }
            let bytes = Array(target.utf8)
            guard let slash = bytes.indices.dropLast().first(where: { bytes[$0] == 0x2F && bytes[$0 + 1] == 0x2F })
            else { return target }
            let password = carrying.password.map { ":" + escaped($0.revealed) } ?? ""
            let head = String(decoding: bytes[..<(slash + 2)], as: UTF8.self)
            let tail = String(decoding: bytes[(slash + 2)...], as: UTF8.self)
            return head + escaped(carrying.username) + password + "@" + tail
        }

        /// `text` with every byte but letters and digits escaped.
        func escaped(_ text: String) -> String {
            text.utf8.map { byte in
                (0x30...0x39).contains(byte) || (0x61...0x7a).contains(byte | 0x20)
                    ? String(UnicodeScalar(byte)) : "%" + String(byte, radix: 16).leftPadded(to: 2)
            }.joined()
        }

        mutating func checkShown() {
            var secrets = [CredentialTrial.marker]
            if let written = trial.writtenPassword, written.utf8.count >= CredentialTrial.marker.utf8.count {
                secrets.append(written)
            }
            for text in shown {
                for secret in secrets where text.utf8.count >= secret.utf8.count && contains(text, secret) {
                    problems.append("shown with its password: \(text)")
                }
            }
        }

        /// Whether `text` holds `part`, byte for byte.
        func contains(_ text: String, _ part: String) -> Bool {
            let haystack = Array(text.utf8)
            let needle = Array(part.utf8)
            guard !needle.isEmpty, haystack.count >= needle.count else { return false }
            return (0...(haystack.count - needle.count)).contains {
                haystack[$0..<($0 + needle.count)].elementsEqual(needle)
            }
        }

        func dumped<T>(_ value: T) -> String {
            var text = ""
            dump(value, to: &text)
            return text
        }
    }
}

/// The `credentials` fuzz target: a ``CredentialTrial`` built from the input.
enum FuzzCredentials {
    /// Origins a trial's URL and redirects pick from: the same host in other spellings, other
    /// ports, other hosts, the other scheme.
    static let hosts = [
        "127.0.0.1:8080", "127.0.0.1:8081", "localhost:8080", "LOCALHOST:8080", "127.0.0.2:8080", "127.0.0.1",
        "127.0.0.1:80", "[::1]:8080", "example.org", "example.org:443", "127.0.0.1:8080.", "xn--bcher-kva.example",
    ]

    static let paths = ["/repo.git", "/a/b/repo.git/", "/", "", "/r%20x.git", "/u@h/repo.git", "/x?y=1", "/~u/r"]

    static func run(_ data: [UInt8]) {
        let trial = trial(from: data)
        let problems = trial.run()
        fuzzInvariant(problems.isEmpty, "\(trial): \(problems)")
    }

    /// Byte 0: scheme, host, whether the URL has user information and whether its password is
    /// escaped whole; then the user name and the password (each a length byte and bytes), the
    /// path choice; then answers, one or more bytes each.
    static func trial(from data: [UInt8]) -> CredentialTrial {
        var input = FuzzInput(data)
        let flags = input.byte()
        let user = String(decoding: input.take(Int(input.byte() % 16)).map(lowercaseLetter), as: UTF8.self)
        let password = Array(CredentialTrial.marker.utf8) + input.take(Int(input.byte() % 32))
        let path = paths[Int(input.byte()) % paths.count]
        var answers: [CredentialTrial.Answer] = []
        while !input.isEmpty && answers.count < 64 {
            let kind = input.byte()
            switch kind % 8 {
            case 0, 1, 2:
                let choice = input.byte()
                let host = hosts[Int(choice) % hosts.count]
                let scheme = choice & 0x80 != 0 ? "https" : "http"
                let suffix = input.byte() & 1 == 0 ? "/info/refs?service=git-upload-pack" : ""
                let targetPath = paths[Int(input.byte()) % paths.count] + suffix
                let target: String
                switch kind >> 3 & 3 {
                case 0: target = targetPath.hasPrefix("/") ? targetPath : "/" + targetPath
                case 1: target = "\(scheme)://\(host)\(targetPath)"
                case 2: target = "\(scheme)://evil:\(CredentialTrial.locationPassword)@\(host)\(targetPath)"
                default: target = "//\(host)\(targetPath)"
                }
                answers.append(.redirect(target: target, carry: kind & 0x40 != 0))
            case 3, 4: answers.append(.unauthorized)
            case 5, 6: answers.append(.ok)
            default: answers.append(.status([404, 500, 403, 302][Int(kind >> 3) % 4]))
            }
        }
        return CredentialTrial(
            secure: flags & 1 != 0, hostAndPort: hosts[Int(flags >> 1 & 7) % hosts.count],
            user: user.isEmpty ? "u" : user,
            writtenPassword: flags & 0x10 != 0 ? nil : written(password, escapeAll: flags & 0x20 != 0), path: path,
            answers: answers)
    }

    /// `password` as a URL's user information may hold it: unreserved characters, `:` and `@` as
    /// they are (or every byte escaped), anything else `%XX`.
    static func written(_ password: [UInt8], escapeAll: Bool) -> String {
        var text = ""
        for byte in password {
            let plain =
                (0x30...0x39).contains(byte) || (0x41...0x5a).contains(byte) || (0x61...0x7a).contains(byte)
                || "-._~:@!$&'()*+,;=".utf8.contains(byte)
            if plain && !escapeAll {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                text += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return text
    }

    private static func lowercaseLetter(_ byte: UInt8) -> UInt8 { UInt8(ascii: "a") + byte % 26 }
}
