import GitWireCore

/// The state of connecting to a host: the resolved addresses, which one is being tried, and
/// why earlier ones failed. Driven by a ``StreamChannel`` in a run loop (the blocking
/// connect runs that channel on a private loop).
package struct TCPConnector {
    package let host: String
    package let port: Int
    package let timeout: Duration?
    package let resolver: any HostResolver
    /// The host's addresses, once looked up.
    package var addresses: [SocketAddress]?
    private var index = 0
    private(set) var failures: [(address: SocketAddress, errno: Errno)] = []
    /// The address being tried.
    private(set) var current: SocketAddress?

    package init(host: String, port: Int, timeout: Duration?, resolver: any HostResolver = SystemResolver()) {
        self.host = host
        self.port = port
        self.timeout = timeout
        self.resolver = resolver
    }

    /// Starts a connect to the next address. Returns its socket, and whether it is connected
    /// already. Throws ``ConnectError`` when no address is left, or ``ResolveError``.
    package mutating func next() throws -> (FileDescriptor, connected: Bool) {
        if addresses == nil {
            addresses =
                try resolver.immediateAddresses(host: host, port: port) ?? resolver.resolve(host: host, port: port)
        }
        while let addresses, index < addresses.count {
            let address = addresses[index]
            index += 1
            current = address
            let fd = try Socket.makeStream(family: address.family)
            do {
                let connected = try Socket.startConnect(fd, to: address)
                if connected { Socket.setNoDelay(fd) }
                return (fd, connected)
            } catch let error as SystemCallError {
                failures.append((address, error.errno))
                try? fd.close()
            }
        }
        throw ConnectError(host: host, port: port, failures: failures)
    }

    /// Checks a socket whose connect was in progress: true if it connected (and `TCP_NODELAY` is
    /// set); false if it failed, with the failure recorded and the socket closed.
    package mutating func finish(_ fd: FileDescriptor) -> Bool {
        if let error = Socket.connectError(fd) {
            if let current { failures.append((current, error)) }
            try? fd.close()
            return false
        }
        Socket.setNoDelay(fd)
        return true
    }

    /// The error for a connect that took longer than ``timeout``.
    package var timeoutError: StreamTimeoutError {
        StreamTimeoutError(after: timeout ?? .zero, activity: "connecting to \(host) port \(port)")
    }
}

/// "10 s", "0.5 s": seconds as people write them.
package func formatSeconds(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    // Whole seconds, or too many for the milliseconds to matter (or to count without overflow).
    if attoseconds == 0 || abs(seconds) > 1_000_000_000_000 { return "\(seconds) s" }
    let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
    var text = String(Double(milliseconds) / 1000)
    if text.hasSuffix(".0") { text.removeLast(2) }
    return "\(text) s"
}
