import GitWireCore
import Glibc

extension File {
    /// Sets the file's permission bits, such as `0o444` for a finished pack or index.
    package func setPermissions(_ mode: UInt32) throws {
        _ = try retryingInterrupts("fchmod \(path)") { fchmod(descriptor.rawValue, mode_t(mode)) }
    }
}
