/// Which layer of git's configuration an entry comes from, as `git config --show-scope` names it.
/// Later layers override earlier ones: system, global, local, worktree, then command.
public enum ConfigScope: String, Hashable, Sendable, CaseIterable {
    /// `/etc/gitconfig` (or `GIT_CONFIG_SYSTEM`).
    case system
    /// `$XDG_CONFIG_HOME/git/config` and `~/.gitconfig` (or `GIT_CONFIG_GLOBAL`).
    case global
    /// The repository's `config`.
    case local
    /// The worktree's `config.worktree` (with `extensions.worktreeConfig`).
    case worktree
    /// `-c`, `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>` and `GIT_CONFIG_PARAMETERS`.
    case command
}

/// Where an entry's text was read from, as `git config --show-origin` shows it.
public enum ConfigOrigin: Hashable, Sendable {
    /// A file, named by the path git would show (as it was reached: an included file's path is the
    /// including file's directory joined with the `include.path` value, not resolved).
    case file(String)
    /// The command line or the environment (`-c`, `GIT_CONFIG_PARAMETERS`, `GIT_CONFIG_COUNT`).
    case commandLine
    /// Text given as a whole, named by `name` (git's "blob" origin).
    case blob(String)

    /// `file:<path>`, `command line:` or `blob:<name>`, as `git config --show-origin -z` prints
    /// it (without `-z`, git quotes names that need it).
    package var gitText: String {
        switch self {
        case .file(let path): return "file:\(path)"
        case .commandLine: return "command line:"
        case .blob(let name): return "blob:\(name)"
        }
    }

    /// The file's path, if the origin is a file.
    public var path: String? {
        if case .file(let path) = self { return path }
        return nil
    }

    /// How git's error messages name the origin: `file <path>`, `command line `, `blob <name>`.
    var messageText: String {
        switch self {
        case .file(let path): return "file \(path)"
        case .commandLine: return "command line "
        case .blob(let name): return "blob \(name)"
        }
    }
}

/// One configuration variable as git reads it: its canonical name (section and key lowercased,
/// subsection as written: `remote.origin.url`, `url.git@example.org:.insteadof`) and its value
/// (nil for a key written without `=`, which git takes as boolean true).
public struct ConfigEntry: Hashable, Sendable {
    /// The canonical name: `section.key` or `section.subsection.key`.
    public var name: String
    /// The value; nil for `key` with no `=`.
    public var value: String?
    /// The layer the entry belongs to (nil for text parsed on its own).
    public var scope: ConfigScope?
    /// Where the entry was read from (nil for text parsed on its own).
    public var origin: ConfigOrigin?
    /// The line the entry ends on (git's line for messages about it); 0 for the command line.
    public var line: Int

    /// An entry named `name` with `value`.
    public init(
        name: String, value: String?, scope: ConfigScope? = nil, origin: ConfigOrigin? = nil, line: Int = 0
    ) {
        self.name = name
        self.value = value
        self.scope = scope
        self.origin = origin
        self.line = line
    }

    /// The section: the name up to its first dot (`remote` in `remote.origin.url`).
    public var section: Substring {
        guard let dot = name.utf8.firstIndex(of: UInt8(ascii: ".")) else { return name[...] }
        return name[..<dot]
    }

    /// The subsection: what lies between the first and the last dot (`origin` in
    /// `remote.origin.url`, `https://example.org/` in `url.https://example.org/.insteadof`); nil
    /// when the name has one dot.
    public var subsection: Substring? {
        guard let first = name.utf8.firstIndex(of: UInt8(ascii: ".")),
            let last = name.utf8.lastIndex(of: UInt8(ascii: ".")), first != last
        else { return nil }
        return name[name.utf8.index(after: first)..<last]
    }

    /// The key: the name after its last dot (`url` in `remote.origin.url`).
    public var key: Substring {
        guard let dot = name.utf8.lastIndex(of: UInt8(ascii: ".")) else { return name[...] }
        return name[name.utf8.index(after: dot)...]
    }
}
