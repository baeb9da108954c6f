import GitWireCore
import Glibc

/// The user database, the host's name and local time: what git's default identity and
/// timestamps are made from.
package enum UserDatabase {
    /// The login name and the GECOS field of the real user (`getpwuid(getuid())`).
    package static func currentUser() -> (login: String, gecos: String)? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16384)
        guard getpwuid_r(getuid(), &entry, &buffer, buffer.count, &result) == 0, result != nil,
            let login = entry.pw_name
        else { return nil }
        return (String(cString: login), entry.pw_gecos.map { String(cString: $0) } ?? "")
    }

    /// The host's name (`gethostname`).
    package static func hostName() -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The canonical name `getaddrinfo` gives `host` (`AI_CANONNAME`), when it has a dot.
    package static func canonicalName(_ host: String) -> String? {
        var hints = addrinfo()
        hints.ai_flags = AI_CANONNAME
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(list) }
        guard let name = first.pointee.ai_canonname else { return nil }
        let text = String(cString: name)
        return text.contains(".") ? text : nil
    }

    /// The first address `getaddrinfo` gives for `host` (TCP), numeric, as git names the address
    /// it connects to.
    package static func firstAddress(_ host: String) -> String? {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(list) }
        var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard
            getnameinfo(
                first.pointee.ai_addr, first.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0,
                NI_NUMERICHOST) == 0
        else {
            return nil
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Now, in seconds since 1970, and the local time zone's offset from UTC then, in seconds.
    package static func now() -> (seconds: Int64, utcOffset: Int) {
        var seconds = time(nil)
        var parts = tm()
        localtime_r(&seconds, &parts)
        return (Int64(seconds), Int(parts.tm_gmtoff))
    }
}
