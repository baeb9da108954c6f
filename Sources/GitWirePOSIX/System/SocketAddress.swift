import GitWireCore
import Glibc

/// An IPv4 or IPv6 socket address.
public struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
    /// The raw address bytes (`sockaddr_in` or `sockaddr_in6`).
    package let storage: [UInt8]

    package init(copying pointer: UnsafePointer<sockaddr>, length: socklen_t) {
        storage = Array(UnsafeRawBufferPointer(start: pointer, count: Int(length)))
    }

    /// The address family, `AF_INET` or `AF_INET6`.
    package var family: CInt {
        storage.withUnsafeBytes { CInt($0.load(as: sockaddr.self).sa_family) }
    }

    /// The port number.
    public var port: Int {
        storage.withUnsafeBytes { raw in
            let networkOrder =
                family == AF_INET6
                ? raw.load(as: sockaddr_in6.self).sin6_port : raw.load(as: sockaddr_in.self).sin_port
            return Int(UInt16(bigEndian: networkOrder))
        }
    }

    /// The numeric host, such as `127.0.0.1` or `::1`.
    public var host: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        storage.withUnsafeBytes { raw in
            if family == AF_INET6 {
                var address = raw.load(as: sockaddr_in6.self).sin6_addr
                _ = inet_ntop(AF_INET6, &address, &text, socklen_t(text.count))
            } else {
                var address = raw.load(as: sockaddr_in.self).sin_addr
                _ = inet_ntop(AF_INET, &address, &text, socklen_t(text.count))
            }
        }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `host:port`, with IPv6 hosts in brackets.
    public var description: String { family == AF_INET6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    package func withSockaddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws -> Result) rethrows -> Result
    {
        try storage.withUnsafeBytes { raw in
            try body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
        }
    }

    /// Resolves `host` and `port` to stream socket addresses, IPv4 and IPv6, in the resolver's
    /// order. With `numericOnly`, only a numeric address is accepted (no lookup, never blocks).
    public static func resolve(host: String, port: Int, numericOnly: Bool = false) throws -> [SocketAddress] {
        var hints = addrinfo()
        if numericOnly { hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV }
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = CInt(SOCK_STREAM.rawValue)
        hints.ai_protocol = CInt(IPPROTO_TCP)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0 else {
            let reason =
                status == EAI_SYSTEM ? Errno.current.description : String(cString: gai_strerror(status))
            throw ResolveError(host: host, port: port, reason: reason)
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var cursor = list
        while let entry = cursor {
            if let address = entry.pointee.ai_addr {
                let candidate = SocketAddress(copying: address, length: entry.pointee.ai_addrlen)
                if !addresses.contains(candidate) { addresses.append(candidate) }
            }
            cursor = entry.pointee.ai_next
        }
        return addresses
    }
}
