/// An `http(s)://` URL whose user name, password or path holds a newline once percent-decoded:
/// git refuses it before it connects (`credential url cannot be parsed`), since the credential
/// protocol is line by line and the rest of the line would reach the credential helpers as a
/// field of its own (`%0Ahost=…` in a user name). gitwire used to leave the field out of what it
/// told the helpers, and so asked for another user name than the URL's.
public struct CredentialURLNewlineError: GitWireError, Hashable, Sendable {
    /// What kind of failure this is: ``GitWireErrorKind/usage``.
    public var kind: GitWireErrorKind { .usage }

    /// Which part of the URL holds the newline: `username`, `password` or `path`.
    public let component: String
    /// The URL as git shows it (ending with a slash), without its user information: an error
    /// never holds a password.
    public let url: String

    /// An error about `url` (kept without its user information) and its `component`.
    public init(url: String, component: String) {
        var shown = RemoteURL.withoutCredentials(url)
        if !shown.hasSuffix("/") { shown += "/" }
        self.url = shown
        self.component = component
    }

    /// git's warning, which comes before its fatal message: `url contains a newline in its
    /// <component> component: <url>`.
    public var warning: String { "url contains a newline in its \(component) component: \(url)" }

    /// git's fatal message: `credential url cannot be parsed: <url>`.
    public var description: String { "credential url cannot be parsed: \(url)" }
}

extension SmartHTTP.Location {
    /// Throws ``CredentialURLNewlineError`` when the user name, password or path of `url` (this
    /// location's text) holds a newline once percent-decoded, as git's `credential_from_url`
    /// refuses it (the path there is everything after the host, query included).
    package func checkCredentialFields(of url: String) throws(CredentialURLNewlineError) {
        if username?.utf8.contains(0x0a) == true {
            throw CredentialURLNewlineError(url: url, component: "username")
        }
        if password?.revealed.utf8.contains(0x0a) == true {
            throw CredentialURLNewlineError(url: url, component: "password")
        }
        // The rest after `scheme://authority/`, as git decodes it: `%0a`/`%0A`, or a raw newline.
        let bytes = Array(url.utf8)
        guard
            let schemeEnd = (0..<max(0, bytes.count - 2)).first(where: {
                bytes[$0..<($0 + 3)].elementsEqual("://".utf8)
            })
        else { return }
        let rest = bytes[(schemeEnd + 3)...]
        guard let slash = rest.firstIndex(of: UInt8(ascii: "/")) else { return }
        let path = rest[slash...]
        var index = path.startIndex
        while index < path.endIndex {
            if path[index] == 0x0a { throw CredentialURLNewlineError(url: url, component: "path") }
            if path[index] == UInt8(ascii: "%"), index + 2 < path.endIndex, path[index + 1] == UInt8(ascii: "0"),
                path[index + 2] | 0x20 == UInt8(ascii: "a")
            {
                throw CredentialURLNewlineError(url: url, component: "path")
            }
            index += 1
        }
    }
}
