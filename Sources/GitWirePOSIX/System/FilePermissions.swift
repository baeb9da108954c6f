import GitWireCore
import Glibc

extension File {
    /// Sets the file's permission bits exactly, such as `0o444`.
    package func setPermissions(_ mode: UInt32) throws {
        _ = try retryingInterrupts("fchmod \(path)") { fchmod(descriptor.rawValue, mode_t(mode)) }
    }

    /// Sets the file's permission bits to `mode` less the process's umask, as `open(2)` would
    /// have made a new file of that mode (and as git makes its packs, indexes and loose objects:
    /// `0o444` less the umask, so a repository made private with `umask 077` stays private),
    /// opened up as `core.sharedRepository` says (``FileSystem/creationMode(_:)``).
    package func setCreationPermissions(_ mode: UInt32) throws {
        try setPermissions(FileSystem.creationMode(mode))
    }
}

extension FileSystem {
    /// The process's file-mode creation mask (umask), read once from `/proc/self/status`
    /// (reading it with `umask(2)` would change it for a moment, for every thread); `0o022`
    /// where that file does not say.
    package static let creationMask: UInt32 = {
        guard let bytes = try? ConfigFiles.read("/proc/self/status", limit: 1 << 16) else { return 0o022 }
        for line in bytes.split(separator: 0x0a) where line.starts(with: Array("Umask:".utf8)) {
            var value: UInt32 = 0
            var digits = 0
            for byte in line.dropFirst("Umask:".utf8.count) where byte != 0x20 && byte != 0x09 {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "7"), digits < 6 else { return 0o022 }
                value = value * 8 + UInt32(byte - UInt8(ascii: "0"))
                digits += 1
            }
            return digits > 0 ? value & 0o777 : 0o022
        }
        return 0o022
    }()
}
