/// A repository's format as its `config` file declares it: `core.repositoryformatversion` and
/// `extensions.objectFormat`, checked as git 2.39's `check_repository_format` checks them. Reads
/// only those two keys (sections, subsections, comments, quoted values and escapes as git's
/// config syntax has them); the rest of the file is skipped.
package struct RepositoryFormat: Hashable, Sendable {
    /// `core.repositoryformatversion` (0 when unset).
    package var version: Int
    /// `extensions.objectFormat` (SHA-1 when unset).
    package var objectFormat: ObjectFormat

    /// The format of a repository whose `config` file holds `config`. Throws
    /// ``RepositoryFormatError`` with git's message for a version above 1, an object format git
    /// does not know, or an object format in a version 0 repository.
    package init(config: [UInt8]) throws(RepositoryFormatError) {
        var version = 0
        var formatName: String?
        for (section, key, value) in ConfigScanner.entries(config) {
            if section == "core" && key == "repositoryformatversion" {
                guard let value, let number = Int(value), number >= 0 else {
                    throw RepositoryFormatError(
                        "bad numeric config value '\(value ?? "")' for 'core.repositoryformatversion'")
                }
                version = number
            } else if section == "extensions" && key == "objectformat" {
                guard let value else {
                    throw RepositoryFormatError("missing value for 'extensions.objectformat'")
                }
                guard ObjectFormat(value) != nil else {
                    throw RepositoryFormatError("invalid value for 'extensions.objectformat': '\(value)'")
                }
                formatName = value
            }
        }
        if version > 1 { throw RepositoryFormatError("Expected git repo version <= 1, found \(version)") }
        if version == 0 && formatName != nil {
            throw RepositoryFormatError("repo version is 0, but v1-only extension found:\n\tobjectformat")
        }
        self.version = version
        objectFormat = formatName.flatMap(ObjectFormat.init) ?? .sha1
    }
}

/// A repository whose `config` declares a format gitwire (like git 2.39) cannot use.
public struct RepositoryFormatError: GitWireError, Hashable, Sendable {
    /// What kind of failure this is: ``GitWireErrorKind/usage``.
    public var kind: GitWireErrorKind { .usage }
    /// What is wrong, in git's words.
    public let message: String

    /// An error saying `message`.
    public init(_ message: String) { self.message = message }

    /// The text shown to users and in logs.
    public var description: String { message }
}

/// The `section.key = value` entries of a git config file, in order, with section and key
/// lowercased (subsections are kept apart: `[remote "origin"]` is section `remote.origin`).
/// A key with no `=` has a nil value (git's implicit true). Malformed lines are skipped: only
/// the format's keys are read here, and git itself refuses such files.
private enum ConfigScanner {
    static func entries(_ text: [UInt8]) -> [(section: String, key: String, value: String?)] {
        var result: [(String, String, String?)] = []
        var section = ""
        var index = 0
        let end = text.count
        func skipSpaces() { while index < end, text[index] == 0x20 || text[index] == 0x09 { index += 1 } }
        func skipLine() {
            while index < end, text[index] != 0x0a { index += 1 }
            index += 1
        }
        while index < end {
            skipSpaces()
            guard index < end else { break }
            let byte = text[index]
            if byte == 0x0a || byte == 0x0d {
                index += 1
            } else if byte == UInt8(ascii: "#") || byte == UInt8(ascii: ";") {
                skipLine()
            } else if byte == UInt8(ascii: "[") {
                index += 1
                var name: [UInt8] = []
                while index < end, text[index] != UInt8(ascii: "]"), text[index] != 0x20, text[index] != 0x0a {
                    name.append(lowercased(text[index]))
                    index += 1
                }
                skipSpaces()
                if index < end, text[index] == UInt8(ascii: "\"") {
                    index += 1
                    name.append(UInt8(ascii: "."))
                    while index < end, text[index] != UInt8(ascii: "\""), text[index] != 0x0a {
                        if text[index] == UInt8(ascii: "\\"), index + 1 < end { index += 1 }
                        name.append(text[index])
                        index += 1
                    }
                    index += 1
                }
                while index < end, text[index] != UInt8(ascii: "]"), text[index] != 0x0a { index += 1 }
                if index < end, text[index] == UInt8(ascii: "]") { index += 1 }
                section = String(decoding: name, as: UTF8.self)
            } else {
                var key: [UInt8] = []
                while index < end, isKeyByte(text[index]) {
                    key.append(lowercased(text[index]))
                    index += 1
                }
                skipSpaces()
                var value: String?
                if index < end, text[index] == UInt8(ascii: "=") {
                    index += 1
                    value = readValue(text, &index)
                } else {
                    skipLine()
                }
                if !key.isEmpty { result.append((section, String(decoding: key, as: UTF8.self), value)) }
            }
        }
        return result
    }

    private static func isKeyByte(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5a).contains(byte) || (0x61...0x7a).contains(byte)
            || byte == UInt8(ascii: "-")
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 { (0x41...0x5a).contains(byte) ? byte + 0x20 : byte }

    /// A value up to the end of its line (continued lines joined), as git's parse_value reads it:
    /// spaces outside quotes collapsed and trimmed, comments cut, escapes read.
    private static func readValue(_ text: [UInt8], _ index: inout Int) -> String {
        var value: [UInt8] = []
        var quoted = false
        var pendingSpace = false
        while index < text.count {
            let byte = text[index]
            index += 1
            if byte == 0x0a { break }
            if !quoted && (byte == UInt8(ascii: "#") || byte == UInt8(ascii: ";")) {
                while index < text.count, text[index] != 0x0a { index += 1 }
                continue
            }
            if !quoted && (byte == 0x20 || byte == 0x09 || byte == 0x0d) {
                if !value.isEmpty { pendingSpace = true }
                continue
            }
            if pendingSpace {
                value.append(0x20)
                pendingSpace = false
            }
            if byte == UInt8(ascii: "\"") {
                quoted.toggle()
            } else if byte == UInt8(ascii: "\\"), index < text.count {
                let next = text[index]
                index += 1
                switch next {
                case 0x0a: continue
                case UInt8(ascii: "n"): value.append(0x0a)
                case UInt8(ascii: "t"): value.append(0x09)
                case UInt8(ascii: "b"): if !value.isEmpty { value.removeLast() }
                default: value.append(next)
                }
            } else {
                value.append(byte)
            }
        }
        return String(decoding: value, as: UTF8.self)
    }
}
