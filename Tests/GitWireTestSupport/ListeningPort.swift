import GitWire

/// Ports for tests.
public enum ListeningPort {
    /// A loopback port that nothing listens on (it was free a moment ago).
    public static func free() throws -> Int { try ListeningSocket(host: "127.0.0.1").address.port }
}

/// Whether a socket can listen on `::1` here.
public let loopbackIPv6IsAvailable: Bool = (try? ListeningSocket(host: "::1")) != nil
