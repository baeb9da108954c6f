/// A local repository laid out as git lays it out: `HEAD`, `config`, `refs/`, `packed-refs`
/// and `objects/` (loose objects and packs), bare or the `.git` of a work tree (a linked work
/// tree's git directory with its common directory). Made by `create(at:...)` for a clone, or
/// opened (made by gitwire or by git) for a fetch.
public final class Repository {
    /// The git directory.
    public let gitDirectory: String
    /// Where the git directory, the common directory and the work tree are.
    public let location: RepositoryLocation
    /// Its refs.
    public let refs: RefStore
    /// Its objects.
    public let objects: ObjectDatabase
    /// The hash its objects are named with (`extensions.objectFormat`; SHA-1 when unset).
    public let objectFormat: ObjectFormat

    /// The directory shared by every work tree (refs, objects, `config`).
    public var commonDirectory: String { location.commonDirectory }

    /// Opens the git directory `gitDirectory` itself (a bare repository, a `.git` directory, or
    /// a linked work tree's git directory, whose `commondir` is followed). Throws
    /// ``RepositoryFormatError`` for a format git 2.39 would refuse (a version above 1, an
    /// unknown object format).
    public convenience init(gitDirectory: String) throws {
        let common = LoadContext.commonDirectory(of: gitDirectory, environment: [:])
        try self.init(RepositoryLocation(gitDirectory: gitDirectory, commonDirectory: common, workTree: nil))
    }

    /// The refs of the git directory `gitDirectory` (with its common directory, as
    /// ``init(gitDirectory:)`` finds it), without opening its objects: for a command that reads
    /// refs before an operation that opens the repository itself. Throws as that initialiser does
    /// when `gitDirectory` is not a repository or has a format git 2.39 would refuse.
    package static func refs(ofGitDirectory gitDirectory: String) throws -> RefStore {
        let common = LoadContext.commonDirectory(of: gitDirectory, environment: [:])
        guard FileSystem.exists("\(gitDirectory)/HEAD"), FileSystem.isDirectory("\(common)/objects"),
            FileSystem.isDirectory("\(common)/refs")
        else { throw RepositoryError.notARepository(gitDirectory) }
        return try RefStore(gitDirectory: gitDirectory, commonDirectory: common)
    }

    /// Opens the repository at `location` (see ``RepositoryLocation/discover(from:environment:)``).
    /// Throws ``RepositoryFormatError`` for a format git 2.39 would refuse.
    public init(_ location: RepositoryLocation) throws {
        let gitDirectory = location.gitDirectory
        let common = location.commonDirectory
        guard FileSystem.exists("\(gitDirectory)/HEAD"), FileSystem.isDirectory("\(common)/objects"),
            FileSystem.isDirectory("\(common)/refs")
        else { throw RepositoryError.notARepository(gitDirectory) }
        self.gitDirectory = gitDirectory
        self.location = location
        objectFormat = try Self.objectFormat(ofGitDirectory: common)
        refs = RefStore(gitDirectory: gitDirectory, commonDirectory: common, format: objectFormat)
        objects = try ObjectDatabase(gitDirectory: common, format: objectFormat)
    }

    /// The object format the `config` of `gitDirectory` declares (`core.repositoryformatversion`
    /// 1 and `extensions.objectFormat`); SHA-1 when it declares none or there is no `config`.
    /// Throws ``RepositoryFormatError`` with git's message for a format git 2.39 refuses.
    public static func objectFormat(ofGitDirectory gitDirectory: String) throws -> ObjectFormat {
        let path = "\(gitDirectory)/config"
        guard FileSystem.exists(path) else { return .sha1 }
        return try RepositoryFormat(config: FileSystem.read(path)).objectFormat
    }

    /// Creates a bare repository at `path` (which must not exist, or be an empty directory), as
    /// `git init --bare` does, with `config` as its configuration and `HEAD` pointing at
    /// `headTarget`. `template` is the template directory copied into it first, as git's init
    /// copies it (see ``copyTemplate(_:into:ignored:)``; an empty string or a directory that is not there
    /// copies nothing); nil writes gitwire's own `description` and `info/exclude`, those of
    /// git's default template. `templateIgnored` hears the template entries passed over (see
    /// ``copyTemplate(_:into:ignored:)``).
    public static func create(
        at path: String, config: GitConfig, headTarget: String = "refs/heads/master", template: String? = nil,
        templateIgnored: (String) -> Void = { _ in }
    ) throws -> Repository {
        if FileSystem.exists(path) {
            guard FileSystem.isDirectory(path), try FileSystem.contents(ofDirectory: path).isEmpty else {
                throw RepositoryError.destinationExists(path)
            }
        } else if FileSystem.isSymbolicLink(path) {
            try makeLinkTarget(path)
        } else {
            try FileSystem.makeDirectories(path)
        }
        if let template {
            if !template.isEmpty && FileSystem.isDirectory(template) {
                try copyTemplate(template, into: path, ignored: templateIgnored)
            }
        } else {
            try FileSystem.makeDirectory("\(path)/info")
        }
        for directory in ["refs", "refs/heads", "refs/tags", "objects", "objects/info", "objects/pack"] {
            try FileSystem.makeDirectory("\(path)/\(directory)")
        }
        // An empty directory there (from the template) gives way, as git's refs backend makes
        // one give way to a ref.
        FileSystem.removeDirectoryIfEmpty("\(path)/HEAD")
        try FileSystem.writeAtomically(
            Array("ref: \(headTarget)\n".utf8)[...], to: "\(path)/HEAD", permissions: 0o666, temporaryPrefix: ".HEAD-")
        try FileSystem.writeAtomically(
            config.text[...], to: "\(path)/config", permissions: 0o666, temporaryPrefix: ".config-")
        if template != nil { return try Repository(gitDirectory: path) }
        try FileSystem.writeAtomically(
            Array("Unnamed repository; edit this file 'description' to name the repository.\n".utf8)[...],
            to: "\(path)/description", permissions: 0o666, temporaryPrefix: ".description-")
        try FileSystem.writeAtomically(
            Array(Self.excludeTemplate.utf8)[...], to: "\(path)/info/exclude", permissions: 0o666,
            temporaryPrefix: ".exclude-")
        return try Repository(gitDirectory: path)
    }

    /// Makes the directory a dangling symbolic link (or a chain of them) points to, as git's
    /// clone does; the link stays as it is. As in git, only the last component is made: a
    /// missing directory before it is an error (`Invalid path '<directory>': No such file or
    /// directory`).
    private static func makeLinkTarget(_ link: String) throws {
        var target = link
        var links = 0
        while FileSystem.isSymbolicLink(target), let next = FileSystem.symbolicLinkTarget(target) {
            links += 1
            guard links <= 40 else { throw SystemCallError("Invalid path '\(link)'", .tooManyLinks) }
            target = next.hasPrefix("/") ? next : FileSystem.parentDirectory(of: target) + "/" + next
        }
        let directory = FileSystem.parentDirectory(of: target)
        if !FileSystem.isDirectory(directory) {
            // The first directory on the way that is missing, named as git names it.
            var reached = directory.hasPrefix("/") ? "" : try FileSystem.currentDirectory()
            for component in directory.split(separator: "/") where component != "." {
                reached = component == ".." ? FileSystem.parentDirectory(of: reached) : reached + "/" + component
                guard FileSystem.isDirectory(reached) else {
                    throw SystemCallError("Invalid path '\(reached)'", .noSuchFile)
                }
            }
        }
        try FileSystem.makeDirectory(target)
    }

    /// git's template for `info/exclude`.
    private static let excludeTemplate = """
        # git ls-files --others --exclude-from=.git/info/exclude
        # Lines that start with '#' are comments.
        # For a project mostly in C, the following would be a good set of
        # exclude patterns (uncomment them if you want to use them):
        # *.[oa]
        # *~

        """
}

/// A git configuration file's content, written as git writes it: `[section]` or
/// `[section "subsection"]` headers and tab-indented `key = value` lines, values quoted and
/// escaped where git would.
public struct GitConfig: Hashable, Sendable {
    /// One `[section "subsection"]` and its entries, in order.
    public struct Section: Hashable, Sendable {
        /// The section name, such as `core` or `remote`.
        public var name: String
        /// The subsection, such as `origin`.
        public var subsection: String?
        /// The entries, in order (a key may repeat).
        public var entries: [(key: String, value: String)]

        /// A section with `entries`.
        public init(_ name: String, _ subsection: String? = nil, _ entries: [(key: String, value: String)]) {
            self.name = name
            self.subsection = subsection
            self.entries = entries
        }

        /// Sections are equal when their names and entries are.
        public static func == (a: Section, b: Section) -> Bool {
            a.name == b.name && a.subsection == b.subsection
                && a.entries.map(\.key) == b.entries.map(\.key) && a.entries.map(\.value) == b.entries.map(\.value)
        }

        /// Hashes the names and entries.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(name)
            hasher.combine(subsection)
            for entry in entries {
                hasher.combine(entry.key)
                hasher.combine(entry.value)
            }
        }
    }

    /// The sections, in order.
    public var sections: [Section]

    /// A configuration of `sections`.
    public init(_ sections: [Section]) { self.sections = sections }

    /// Adds `key = value` as `git config --add` adds it to a file: at the end of the last
    /// section named `name` and `subsection`, else in a new section at the end.
    public mutating func add(_ name: String, _ subsection: String?, _ key: String, _ value: String) {
        if let index = sections.lastIndex(where: { $0.name == name && $0.subsection == subsection }) {
            sections[index].entries.append((key, value))
        } else {
            sections.append(Section(name, subsection, [(key, value)]))
        }
    }

    /// The `core` section `git init --bare` writes on Linux.
    public static let bareCore = Section(
        "core", nil, [("repositoryformatversion", "0"), ("filemode", "true"), ("bare", "true")])

    /// The file's bytes.
    public var text: [UInt8] {
        var text = ""
        for section in sections {
            if let subsection = section.subsection {
                let escaped = subsection.escapingQuotes
                text += "[\(section.name) \"\(escaped)\"]\n"
            } else {
                text += "[\(section.name)]\n"
            }
            for (key, value) in section.entries { text += "\t\(key) = \(Self.quoted(value))\n" }
        }
        return Array(text.utf8)
    }

    /// A value as git writes it: quoted when it starts or ends with a space or holds `;`, `#` or a
    /// carriage return (which git would otherwise drop when reading it back),
    /// with `"`, `\`, newline and tab escaped.
    static func quoted(_ value: String) -> String {
        // Byte by byte, as git reads it back: a `"` or `\` joined to a combining or prepended
        // scalar is still a quote or an escape to git.
        var escaped: [UInt8] = []
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): escaped += Array("\\\"".utf8)
            case UInt8(ascii: "\\"): escaped += Array("\\\\".utf8)
            case UInt8(ascii: "\n"): escaped += Array("\\n".utf8)
            case UInt8(ascii: "\t"): escaped += Array("\\t".utf8)
            default: escaped.append(byte)
            }
        }
        let bytes = value.utf8
        let needsQuotes =
            bytes.first == UInt8(ascii: " ") || bytes.last == UInt8(ascii: " ")
            || bytes.contains(UInt8(ascii: ";")) || bytes.contains(UInt8(ascii: "#"))
            || bytes.contains(UInt8(ascii: "\r"))
        let text = String(decoding: escaped, as: UTF8.self)
        return needsQuotes ? "\"\(text)\"" : text
    }
}

extension String {
    /// The string with a backslash before every backslash and double quote (scalar by scalar,
    /// as git escapes bytes: a combining mark after a quote does not hide the quote).
    fileprivate var escapingQuotes: String {
        var escaped = String.UnicodeScalarView()
        for scalar in unicodeScalars {
            if scalar == "\\" || scalar == "\"" { escaped.append("\\") }
            escaped.append(scalar)
        }
        return String(escaped)
    }
}
