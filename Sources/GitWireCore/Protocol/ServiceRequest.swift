/// Which git service to reach and how to ask for it: the `git-upload-pack /path` of the git://
/// request line, the command of a local or ssh transport, and the protocol version wanted.
public struct ServiceRequest: Hashable, Sendable {
    /// The service asked for.
    public var service: Service
    /// The repository's path on the server.
    public var path: String
    /// The protocol version asked for; the server may answer with an older one.
    public var protocolVersion: ProtocolVersion

    /// Makes a request for `service` on `path`.
    public init(service: Service = .uploadPack, path: String, protocolVersion: ProtocolVersion = .v2) {
        self.service = service
        self.path = path
        self.protocolVersion = protocolVersion
    }

    /// The git:// request packet, exactly as git sends it:
    /// `git-upload-pack /path\0host=HOST\0` and, for versions above 0, `\0version=N\0`.
    /// `host` is the URL's host as written, with its port if the URL has one.
    public func daemonRequest(host: String) -> PktLine {
        var bytes = Array("\(service.rawValue) \(path)".utf8) + [0] + Array("host=\(host)".utf8) + [0]
        if protocolVersion != .v0 { bytes += [0] + Array("version=\(protocolVersion.rawValue)".utf8) + [0] }
        return .data(bytes)
    }

    /// The `GIT_PROTOCOL` value for local and ssh transports, nil for version 0.
    public var gitProtocolEnvironment: String? {
        protocolVersion == .v0 ? nil : "version=\(protocolVersion.rawValue)"
    }
}

/// A git service a client can ask a server for.
public enum Service: String, Hashable, Sendable, CaseIterable {
    /// `git-upload-pack`: sends objects and refs (ls-remote, fetch, clone).
    case uploadPack = "git-upload-pack"
    /// `git-receive-pack`: takes objects and ref updates (push).
    case receivePack = "git-receive-pack"
}
