import CGitWire
import GitWireCore
import Glibc

/// Socket calls on descriptors: creation, non-blocking connect, options, listen and accept.
package enum Socket {
    /// A new non-blocking, close-on-exec stream socket for the address's family.
    package static func makeStream(family: CInt) throws -> FileDescriptor {
        let type = CInt(SOCK_STREAM.rawValue) | CInt(SOCK_NONBLOCK.rawValue) | CInt(SOCK_CLOEXEC.rawValue)
        let fd = try retryingInterrupts("socket") { socket(family, type, 0) }
        return FileDescriptor(rawValue: fd)
    }

    /// A connected pair of non-blocking, close-on-exec Unix stream sockets.
    package static func makePair() throws -> (FileDescriptor, FileDescriptor) {
        var fds: [CInt] = [0, 0]
        let type = CInt(SOCK_STREAM.rawValue) | CInt(SOCK_NONBLOCK.rawValue) | CInt(SOCK_CLOEXEC.rawValue)
        _ = try retryingInterrupts("socketpair") { socketpair(AF_UNIX, type, 0, &fds) }
        return (FileDescriptor(rawValue: fds[0]), FileDescriptor(rawValue: fds[1]))
    }

    /// Starts connecting `fd` to `address`: true if it connected at once, false if it is in progress.
    package static func startConnect(_ fd: FileDescriptor, to address: SocketAddress) throws -> Bool {
        let result = address.withSockaddr { connect(fd.rawValue, $0, $1) }
        if result == 0 { return true }
        let error = Errno.current
        if error == .inProgress || error == .interrupted { return false }
        throw SystemCallError("connect", error)
    }

    /// The outcome of a finished non-blocking connect: nil when connected, or the reason it failed.
    package static func connectError(_ fd: FileDescriptor) -> Errno? {
        var value: CInt = 0
        var length = socklen_t(MemoryLayout<CInt>.size)
        if getsockopt(fd.rawValue, SOL_SOCKET, SO_ERROR, &value, &length) == -1 { return Errno.current }
        return value == 0 ? nil : Errno(rawValue: value)
    }

    /// Turns off Nagle's algorithm so small requests leave at once. Not an error on non-TCP sockets.
    package static func setNoDelay(_ fd: FileDescriptor) {
        var on: CInt = 1
        _ = setsockopt(fd.rawValue, CInt(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<CInt>.size))
    }

    /// Asks the kernel to acknowledge received data at once instead of delaying the ACK. Linux
    /// clears the flag as it goes, so a reader sets it after each read. A server that writes its
    /// last small packet (a flush) under Nagle's algorithm waits for that ACK: with delayed ACKs
    /// the exchange would stall about 40 ms at the end of every response.
    package static func requestQuickAck(_ fd: FileDescriptor) {
        var on: CInt = 1
        _ = setsockopt(fd.rawValue, CInt(IPPROTO_TCP), CInt(TCP_QUICKACK), &on, socklen_t(MemoryLayout<CInt>.size))
    }

    /// Whether `TCP_NODELAY` is set.
    package static func noDelay(_ fd: FileDescriptor) -> Bool {
        var value: CInt = 0
        var length = socklen_t(MemoryLayout<CInt>.size)
        guard getsockopt(fd.rawValue, CInt(IPPROTO_TCP), TCP_NODELAY, &value, &length) == 0 else { return false }
        return value != 0
    }

    /// Sets the kernel's send or receive buffer size.
    package static func setBufferSize(_ fd: FileDescriptor, send: Bool, bytes: Int) throws {
        var value = CInt(bytes)
        let option = send ? SO_SNDBUF : SO_RCVBUF
        _ = try retryingInterrupts("setsockopt") {
            setsockopt(fd.rawValue, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<CInt>.size))
        }
    }

    /// Makes the next close reset the connection (RST) instead of ending it in order.
    package static func setResetOnClose(_ fd: FileDescriptor) {
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd.rawValue, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }

    /// Shuts down one or both directions.
    package static func shutdown(_ fd: FileDescriptor, reading: Bool, writing: Bool) {
        let how = reading && writing ? CInt(SHUT_RDWR) : (reading ? CInt(SHUT_RD) : CInt(SHUT_WR))
        _ = Glibc.shutdown(fd.rawValue, how)
    }

    /// A non-blocking socket listening on `address` (port 0 picks a free one) and the address it got.
    package static func listen(on address: SocketAddress, backlog: Int) throws -> (FileDescriptor, SocketAddress) {
        let fd = try makeStream(family: address.family)
        do {
            var on: CInt = 1
            _ = setsockopt(fd.rawValue, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<CInt>.size))
            if address.family == AF_INET6 {
                _ = setsockopt(fd.rawValue, CInt(IPPROTO_IPV6), IPV6_V6ONLY, &on, socklen_t(MemoryLayout<CInt>.size))
            }
            _ = try address.withSockaddr { pointer, length in
                try retryingInterrupts("bind") { bind(fd.rawValue, pointer, length) }
            }
            _ = try retryingInterrupts("listen") { Glibc.listen(fd.rawValue, CInt(backlog)) }
            return (fd, try localAddress(fd))
        } catch {
            try? fd.close()
            throw error
        }
    }

    /// A socket bound to `address` (port 0 picks a free one) that never listens, and the
    /// address it got. Without `SO_REUSEADDR`, so no other socket can take the port while it is
    /// open.
    package static func bindOnly(to address: SocketAddress) throws -> (FileDescriptor, SocketAddress) {
        let fd = try makeStream(family: address.family)
        do {
            _ = try address.withSockaddr { pointer, length in
                try retryingInterrupts("bind") { bind(fd.rawValue, pointer, length) }
            }
            return (fd, try localAddress(fd))
        } catch {
            try? fd.close()
            throw error
        }
    }

    /// The address a socket is bound to.
    package static func localAddress(_ fd: FileDescriptor) throws -> SocketAddress {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = try withUnsafeMutablePointer(to: &storage) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                try retryingInterrupts("getsockname") { getsockname(fd.rawValue, address, &length) }
            }
        }
        return withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { SocketAddress(copying: $0, length: length) }
        }
    }

    /// Accepts one pending connection as a non-blocking, close-on-exec descriptor.
    package static func accept(_ fd: FileDescriptor) throws -> IOResult<FileDescriptor> {
        switch try retryingNonBlocking("accept", { cgw_accept_nonblocking(fd.rawValue) }) {
        case .done(let client): return .done(FileDescriptor(rawValue: client))
        case .wouldBlock: return .wouldBlock
        }
    }
}
