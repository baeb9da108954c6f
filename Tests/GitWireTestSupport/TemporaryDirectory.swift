import Foundation

/// A fresh directory under the system's temporary folder, removed with everything in it when the
/// value goes away.
public final class TemporaryDirectory: @unchecked Sendable {
    /// The directory's absolute path.
    public let path: String

    /// Makes a new directory whose name starts with `prefix`.
    public init(prefix: String = "gitwire-test") throws {
        var template = Array("\(NSTemporaryDirectory())/\(prefix).XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        path = URL(fileURLWithPath: String(cString: made)).standardizedFileURL.path
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// The path of `name` inside the directory.
    public func appending(_ name: String) -> String { "\(path)/\(name)" }
}
