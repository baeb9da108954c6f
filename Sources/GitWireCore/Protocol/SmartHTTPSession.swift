extension SmartHTTP {
    /// Where one smart HTTP session sends its requests and which credential goes with each, as
    /// git runs a session, with every credential bound to the origin (scheme, host, port) it was
    /// given for:
    ///
    /// - The repository URL's own `user:password` are a credential for its origin.
    /// - A redirect of the discovery request moves the session; the credential stays behind when
    ///   the target is another origin (git resets its credential to the new URL's, and libcurl
    ///   drops one on a redirect to another host, port or scheme). User information in a redirect
    ///   target (the server's `Location`, or carried over by libcurl's resolving) is never taken as
    ///   a credential: a server does not choose what is sent where.
    /// - A 401 from an origin with no password known there asks the credential helpers about that
    ///   origin, once; a 401 for a password that was sent fails, and a helper's password is then
    ///   rejected.
    /// - A helper's credential is approved once a request that carried it is accepted.
    ///
    /// Pure: the HTTP transport drives it; the tests and the `credentials` fuzz target check that
    /// no request to one origin ever carries another origin's credential and that nothing it
    /// shows carries a password.
    package struct Session: Sendable {
        /// At most this many redirects of one discovery request are followed (libcurl's limit as
        /// git sets it).
        package static let maximumRedirects = 20

        /// The service the session is for.
        package let service: Service
        /// The repository: the URL the session was made with, then where a redirect of the
        /// discovery request led once that request succeeded.
        package private(set) var repository: Location
        /// Where the next discovery request goes (the first, or the target of a redirect).
        package private(set) var discovery: Location
        /// Redirects followed so far.
        package private(set) var redirectCount = 0
        /// The credential known, and the origin it belongs to.
        private var credential: HTTPCredential?
        /// Whether ``credential`` came from the credential helpers (then it is approved or
        /// rejected after use).
        package private(set) var credentialIsFromHelper = false
        private var approved = false
        private var askedHelper: Set<HTTPOrigin> = []

        /// A session for the repository at `repository`.
        package init(_ repository: Location, service: Service) throws {
            self.service = service
            self.repository = repository
            discovery = try Location(SmartHTTP.discoveryURL(base: repository.base, service: service))
            credential = repository.credential
        }

        /// The URL every request after discovery is `POST`ed to.
        package var serviceLocation: Location {
            get throws { try Location(SmartHTTP.serviceURL(base: repository.base, service: service)) }
        }

        /// The repository URL as messages show it: no user information, a trailing slash (git's form).
        package var displayURL: String { repository.base + "/" }

        /// The credential that goes with a request to `origin`: the session's, only if it was
        /// given for that origin; nil otherwise.
        package func credential(for origin: HTTPOrigin) -> HTTPCredential? {
            guard let credential, credential.origin == origin else { return nil }
            return credential
        }

        /// Why a redirect is not followed.
        package enum RedirectRefusal: Error, Equatable, Sendable {
            /// More than ``maximumRedirects``.
            case tooMany
            /// The target is not an `http://` or `https://` URL (shown without user information).
            case unsupported(String)
        }

        /// The discovery request was answered with a redirect whose `Location` is `location`
        /// (resolved here against the request's URL, which has no user information, so no
        /// credential of the session can reach the target's URL). The next discovery request goes
        /// to ``discovery``.
        package mutating func redirect(to location: String) throws(RedirectRefusal) {
            redirectCount += 1
            guard redirectCount <= Self.maximumRedirects else { throw .tooMany }
            guard let resolved = SmartHTTP.resolveRedirect(location, against: discovery.url) else {
                throw .unsupported(RemoteURL.withoutCredentials(location))
            }
            let target: Location
            do {
                target = try Location(resolved)
            } catch {
                throw .unsupported(RemoteURL.withoutCredentials(resolved))
            }
            if credential?.origin != target.origin { bind(nil, fromHelper: false) }
            discovery = target
        }

        /// The discovery request succeeded at ``discovery``. When it was redirected, the
        /// repository moves to where it led; returns that URL as git's warning shows it
        /// (`redirecting to <url>`), nil when there was no redirect. Throws when the target
        /// does not end in the discovery request's own path and query (git refuses it too).
        package mutating func discoverySucceeded() throws -> String? {
            guard redirectCount > 0 else { return nil }
            guard let base = SmartHTTP.baseAfterRedirect(effectiveURL: discovery.url, service: service),
                let moved = try? Location(base)
            else {
                throw BadRedirect(asked: displayURL, target: discovery.url)
            }
            repository = moved
            return displayURL
        }

        /// A redirect target that is not the repository's discovery URL moved somewhere.
        package struct BadRedirect: Error, Equatable, Sendable {
            /// The repository URL asked for (as shown).
            package let asked: String
            /// Where the redirects led (without user information).
            package let target: String
        }

        /// What to do about a 401.
        package enum Unauthorized: Equatable, Sendable {
            /// Ask the credential helpers about `location`'s origin (with the user name, if known),
            /// then send the request again.
            case askHelper(Location, username: String?)
            /// Fail with "Authentication failed"; reject `rejected` with the helpers first, if given.
            case fail(rejected: HTTPCredential?)
        }

        /// A request to `location` was answered 401. `helperAllowed`: whether the credential
        /// helpers may be asked at all.
        package mutating func unauthorized(at location: Location, helperAllowed: Bool) -> Unauthorized {
            let sent = credential(for: location.origin)
            if sent?.password != nil {
                return .fail(rejected: credentialIsFromHelper ? sent : nil)
            }
            guard helperAllowed, !askedHelper.contains(location.origin) else { return .fail(rejected: nil) }
            askedHelper.insert(location.origin)
            return .askHelper(location, username: sent?.username)
        }

        /// The credential helpers answered for `location` (asked after ``unauthorized(at:helperAllowed:)``).
        package mutating func helperAnswered(username: String?, password: Secret?, for location: Location) {
            bind(
                HTTPCredential(origin: location.origin, username: username ?? "", password: password), fromHelper: true)
        }

        /// A request to `origin` that carried `sent` was accepted (not answered 401). Returns the
        /// credential to approve with the helpers: the helper's, the first time.
        package mutating func accepted(_ sent: HTTPCredential?, at origin: HTTPOrigin) -> HTTPCredential? {
            guard let sent, sent.origin == origin, sent == credential, credentialIsFromHelper, !approved else {
                return nil
            }
            approved = true
            return sent
        }

        private mutating func bind(_ new: HTTPCredential?, fromHelper: Bool) {
            credential = new
            credentialIsFromHelper = new != nil && fromHelper
            approved = false
        }
    }
}
