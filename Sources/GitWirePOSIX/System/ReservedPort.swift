import GitWireCore

/// A loopback TCP port that refuses connections for as long as the value lives: a socket bound
/// to it that never listens. Unlike a port that was free a moment ago, nothing else can start
/// listening on it meanwhile (the socket is bound without `SO_REUSEADDR`). For tests of refused
/// connections.
package final class ReservedPort {
    private let descriptor: FileDescriptor
    /// The address held, with the port the kernel picked.
    package let address: SocketAddress

    /// Holds a free port on `host` (a numeric address such as `127.0.0.1`).
    package init(host: String = "127.0.0.1") throws {
        guard let bindAddress = try SocketAddress.resolve(host: host, port: 0).first else {
            throw ResolveError(host: host, port: 0, reason: "no address")
        }
        (descriptor, address) = try Socket.bindOnly(to: bindAddress)
    }

    /// The port held.
    package var port: Int { address.port }

    deinit { try? descriptor.close() }
}
