import GitWireCore
import Glibc

/// The process environment and wall-clock time.
@usableFromInline package enum Environment {
    /// The value of the environment variable `name`, if set.
    @usableFromInline package static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// Sets the process's environment variable `name` to `value` (removes it for nil), for the
    /// programs it starts from now on (as git's `-c` reaches its children). Not thread-safe: for
    /// a command line's start, before any other thread runs.
    package static func set(_ name: String, _ value: String?) {
        if let value { setenv(name, value, 1) } else { unsetenv(name) }
    }

    /// Local time as git's traces print it: `HH:MM:SS.uuuuuu`.
    package static func timestamp() -> String {
        var now = timeval()
        gettimeofday(&now, nil)
        var seconds = now.tv_sec
        var parts = tm()
        localtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { String(value).leftPadded(to: 2) }
        return
            "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(String(now.tv_usec).leftPadded(to: 6))"
    }
}

/// Where trace lines go: an inherited descriptor or a file opened for appending.
package final class TraceDestination: Sendable {
    private let descriptor: FileDescriptor
    private let owned: Bool

    /// Standard error, descriptor `number` (git allows 2 to 9), or an absolute path.
    package init?(gitSetting value: String) {
        switch value.lowercased() {
        case "", "0", "false", "no", "off": return nil
        case "1", "2", "true", "yes", "on":
            descriptor = .standardError
            owned = false
        default:
            if let number = Int32(value), (3...9).contains(number) {
                descriptor = FileDescriptor(rawValue: number)
                owned = false
            } else if value.hasPrefix("/") {
                let fd = open(value, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o666)
                guard fd >= 0 else { return nil }
                descriptor = FileDescriptor(rawValue: fd)
                owned = true
            } else {
                return nil
            }
        }
    }

    deinit { if owned { try? descriptor.close() } }

    /// Writes one whole line (one `write` call, so lines from several processes do not mix).
    package func write(_ line: [UInt8]) {
        var rest = line[...]
        while !rest.isEmpty {
            guard case .done(let count)? = try? descriptor.write(rest, isSocket: false), count > 0 else { return }
            rest = rest.dropFirst(count)
        }
    }
}
