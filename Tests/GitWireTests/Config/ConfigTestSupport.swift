import Foundation
import GitWire
import GitWireTestSupport

/// Runs `git` with exactly `environment` (plus `PATH` and `LC_ALL=C`): nothing of the test
/// process's own environment or of the machine's configuration reaches it unless named here.
func gitExactly(
    _ arguments: [String], environment: [String: String], in directory: String? = nil
) throws -> ProcessOutput {
    var assignments = ["PATH=\(ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")", "LC_ALL=C"]
    for (name, value) in environment.sorted(by: { $0.key < $1.key }) { assignments.append("\(name)=\(value)") }
    let command = ["env", "-i"] + (directory.map { ["-C", $0] } ?? []) + assignments + ["git"] + arguments
    return try run(command, check: false)
}

/// An environment in which git reads only the files a test made: no system file unless
/// `system` is given, `HOME` in the test's directory.
func configEnvironment(home: String, system: String? = nil, extra: [String: String] = [:]) -> [String: String] {
    var environment = ["HOME": home]
    if let system { environment["GIT_CONFIG_SYSTEM"] = system } else { environment["GIT_CONFIG_NOSYSTEM"] = "1" }
    return environment.merging(extra) { $1 }
}

/// One entry as `git config --list -z` prints it (with `--show-scope` and `--show-origin` when
/// asked): `[scope NUL] [origin NUL] name [LF value] NUL`.
struct ListedEntry: Hashable, CustomStringConvertible {
    var scope: String?
    var origin: String?
    var name: String
    var value: String?

    var description: String {
        "\(scope.map { "\($0) " } ?? "")\(origin.map { "\($0) " } ?? "")\(name)\(value.map { "=\(String(reflecting: $0))" } ?? "")"
    }

    init(scope: String? = nil, origin: String? = nil, name: String, value: String?) {
        self.scope = scope
        self.origin = origin
        self.name = name
        self.value = value
    }

    /// An entry of ours, shown the way git lists it.
    init(_ entry: ConfigEntry, scope: Bool = false, origin: Bool = false) {
        self.scope = scope ? entry.scope?.rawValue : nil
        self.origin = origin ? entry.origin?.gitText : nil
        name = entry.name
        value = entry.value
    }

    /// Parses `git config --list -z` output.
    static func parse(_ output: [UInt8], scope: Bool = false, origin: Bool = false) -> [ListedEntry] {
        var fields = output.split(separator: 0, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        if fields.last == "" { fields.removeLast() }
        var entries: [ListedEntry] = []
        var index = 0
        while index < fields.count {
            var entry = ListedEntry(name: "", value: nil)
            if scope {
                entry.scope = fields[index]
                index += 1
            }
            if origin {
                entry.origin = fields[index]
                index += 1
            }
            guard index < fields.count else { break }
            let item = fields[index]
            index += 1
            if let newline = item.firstIndex(of: "\n") {
                entry.name = String(item[..<newline])
                entry.value = String(item[item.index(after: newline)...])
            } else {
                entry.name = item
            }
            entries.append(entry)
        }
        return entries
    }
}

/// git's last `fatal:` line, without the prefix.
func fatalMessage(_ output: ProcessOutput) -> String? {
    let lines = output.errorText.split(separator: "\n", omittingEmptySubsequences: false)
    guard let start = lines.lastIndex(where: { $0.hasPrefix("fatal: ") }) else { return nil }
    // Messages of several lines (the include depth one) go on to the end.
    let text = lines[start...].joined(separator: "\n")
    return String(text.dropFirst("fatal: ".count)).trimmingCharacters(in: .newlines)
}

/// git's first `error:` or `warning:` message, without the prefix (a message may span lines:
/// it ends where the next `error:`, `warning:` or `fatal:` line starts).
func firstDiagnostic(_ output: ProcessOutput) -> String? {
    let lines = output.errorText.split(separator: "\n", omittingEmptySubsequences: false)
    let prefixes = ["error: ", "warning: ", "fatal: "]
    guard let start = lines.firstIndex(where: { $0.hasPrefix("error: ") || $0.hasPrefix("warning: ") }) else {
        return nil
    }
    var message = [String(lines[start].drop { $0 != " " }.dropFirst())]
    for line in lines[(start + 1)...] {
        if prefixes.contains(where: { line.hasPrefix($0) }) || line.isEmpty { break }
        message.append(String(line))
    }
    return message.joined(separator: "\n")
}

/// git's `error:` lines, without the prefix.
func errorLines(_ output: ProcessOutput) -> [String] {
    output.errorText.split(separator: "\n").filter { $0.hasPrefix("error: ") }.map { String($0.dropFirst(7)) }
}

/// Writes `text` to `path`, making its directory.
func writeConfigFile(_ path: String, _ text: String) throws {
    let directory = (path as NSString).deletingLastPathComponent
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
}

/// A git command that did not end as the test expected.
struct UnexpectedGitOutput: Error, CustomStringConvertible {
    var arguments: [String]
    var output: ProcessOutput
    var description: String { "git \(arguments.joined(separator: " ")) exited \(output.status): \(output.errorText)" }
}
