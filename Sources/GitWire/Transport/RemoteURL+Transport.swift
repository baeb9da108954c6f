extension RemoteURL {

    /// The transport for this URL.
    public func makeTransport() throws -> any Transport {
        switch scheme {
        case .git:
            return GitDaemonTransport(host: host ?? "", port: port ?? 9418, hostHeader: hostHeader)
        case .file:
            return LocalTransport()
        case .ssh:
            return SSHTransport(host: host ?? "", user: user, port: port)
        case .http, .https:
            return try HTTPTransport(url: text)
        }
    }
}
