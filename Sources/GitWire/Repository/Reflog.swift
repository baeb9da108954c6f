/// Reflogs as git's files backend writes them: `logs/<ref>` (in the common directory; `logs/HEAD`
/// in the git directory), one `<old> <new> <identity> <time> <zone>\t<message>` line per update,
/// for the refs `core.logAllRefUpdates` says (by default: branches, remote-tracking branches,
/// notes and `HEAD` in a repository with a work tree, none in a bare one; a ref whose log exists
/// is always logged), and removed with the ref.
struct Reflog: Sendable {
    /// `core.logAllRefUpdates`.
    enum Policy: Sendable {
        case none, normal, always
    }

    let gitDirectory: String
    let commonDirectory: String
    let policy: Policy
    /// The committer identity and time, as git writes it (`Name <email> 1700000000 +0000`).
    let identity: String

    init(gitDirectory: String, commonDirectory: String, policy: Policy, identity: String) {
        self.gitDirectory = gitDirectory
        self.commonDirectory = commonDirectory
        self.policy = policy
        self.identity = identity
    }

    /// The policy a repository's configuration sets (`bare`: whether git takes the repository
    /// as bare).
    static func policy(_ configuration: GitConfiguration, bare: Bool) -> Policy {
        guard let entry = try? configuration.last("core.logAllRefUpdates") else { return bare ? .none : .normal }
        if entry.value?.lowercased() == "always" { return .always }
        return ConfigValue.bool(entry.value) == true ? .normal : .none
    }

    private func path(_ name: String) -> String {
        "\(RefStore.isPerWorktree(name) ? gitDirectory : commonDirectory)/logs/\(name)"
    }

    /// Whether git writes a log entry for `name` (`should_autocreate_reflog`, or a log exists).
    func logs(_ name: String) -> Bool {
        switch policy {
        case .always: return true
        case .normal:
            if name.hasPrefix("refs/heads/") || name.hasPrefix("refs/remotes/") || name.hasPrefix("refs/notes/")
                || name == "HEAD"
            {
                return true
            }
        case .none: break
        }
        return FileSystem.exists(path(name))
    }

    /// Appends an entry for `name` going from `old` to `new` (nil: none), if git would log it.
    func append(_ name: String, old: ObjectID?, new: ObjectID?, message: String) throws {
        guard logs(name) else { return }
        let file = path(name)
        try FileSystem.makeDirectories(FileSystem.parentDirectory(of: file))
        let zero = ObjectID.zero((new ?? old)?.format ?? .sha1)
        let oldHex = (old ?? zero).hex
        let newHex = (new ?? zero).hex
        var line = oldHex + " " + newHex + " " + identity
        let text = Self.normalized(message)
        if !text.isEmpty { line += "\t" + text }
        line += "\n"
        try FileSystem.append(Array(line.utf8), to: file)
        // git opens the log up as `core.sharedRepository` says after each entry.
        try FileSystem.adjustSharedPermissions(file)
    }

    /// Removes the log of `name` (and the directories it leaves empty), as git does when it
    /// deletes the ref.
    func remove(_ name: String) {
        let file = path(name)
        try? FileSystem.remove(file)
        var parts = name.split(separator: "/").dropLast()
        let base = "\(RefStore.isPerWorktree(name) ? gitDirectory : commonDirectory)/logs"
        while parts.count > 1 {
            FileSystem.removeDirectoryIfEmpty("\(base)/\(parts.joined(separator: "/"))")
            parts = parts.dropLast()
        }
    }

    /// git's `copy_reflog_msg`: leading white space dropped, runs of it made one space, trailing
    /// white space trimmed.
    static func normalized(_ message: String) -> String {
        var bytes: [UInt8] = []
        var wasSpace = true
        for byte in message.utf8 {
            let space = GitCType.isSpace(byte) || byte == 0x0b || byte == 0x0c
            if wasSpace && space { continue }
            wasSpace = space
            bytes.append(space ? 0x20 : byte)
        }
        while bytes.last == 0x20 { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }

    // MARK: Identity

    /// The committer identity git writes into reflogs (`git_committer_info(0)`): name and email
    /// from `GIT_COMMITTER_NAME`/`GIT_COMMITTER_EMAIL`, `committer.*`, `user.*`, `EMAIL`, else
    /// the user database and the host's name; the time from `GIT_COMMITTER_DATE` (seconds and
    /// zone, `@` allowed) or the clock.
    static func committerIdentity(_ configuration: GitConfiguration, environment: [String: String]) -> String {
        func setting(_ name: String) -> String? {
            guard let value = (try? configuration.string(name)) ?? nil, !value.isEmpty else { return nil }
            return value
        }
        let user = UserDatabase.currentUser()
        var email =
            environment["GIT_COMMITTER_EMAIL"] ?? setting("committer.email") ?? setting("user.email")
            ?? environment["EMAIL"]
        if email == nil {
            let login = user?.login ?? "unknown"
            var host = "(none)"
            if let name = UserDatabase.hostName() {
                if name.contains(".") {
                    host = name
                } else {
                    host = UserDatabase.canonicalName(name) ?? "\(name).(none)"
                }
            }
            email = "\(login)@\(host)"
        }
        var name = environment["GIT_COMMITTER_NAME"] ?? setting("committer.name") ?? setting("user.name")
        if name == nil, let user {
            var gecos = ""
            for character in user.gecos.prefix(while: { $0 != "," }) {
                if character == "&" {
                    gecos += user.login.prefix(1).uppercased() + user.login.dropFirst()
                } else {
                    gecos.append(character)
                }
            }
            name = gecos
        }
        if name?.isEmpty ?? true { name = user?.login ?? "" }
        let date = environment["GIT_COMMITTER_DATE"].flatMap(Self.parsedDate) ?? Self.clockDate()
        return "\(Self.withoutCrud(name ?? "")) <\(Self.withoutCrud(email ?? ""))> \(date)"
    }

    /// `<seconds> <zone>` from a `GIT_COMMITTER_DATE` in git's raw form (`1700000000 +0000`,
    /// `@1700000000 +0000`); nil for other forms.
    static func parsedDate(_ text: String) -> String? {
        var parts = text.split(separator: " ")
        guard !parts.isEmpty else { return nil }
        if parts[0].hasPrefix("@") { parts[0] = parts[0].dropFirst() }
        guard let seconds = Int64(parts[0]), seconds >= 0 else { return nil }
        var zone = "+0000"
        if parts.count > 1 {
            let candidate = parts[1]
            guard candidate.count == 5, candidate.first == "+" || candidate.first == "-",
                candidate.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber })
            else { return nil }
            zone = String(candidate)
        }
        return "\(seconds) \(zone)"
    }

    private static func clockDate() -> String {
        let (seconds, offset) = UserDatabase.now()
        let minutes = abs(offset) / 60
        let hours = String(minutes / 60)
        let rest = String(minutes % 60)
        let sign = offset < 0 ? "-" : "+"
        return "\(seconds) \(sign)\(hours.count < 2 ? "0" + hours : hours)\(rest.count < 2 ? "0" + rest : rest)"
    }

    /// git's `strbuf_addstr_without_crud`: punctuation and white space trimmed from both ends,
    /// `<`, `>` and newlines dropped inside.
    static func withoutCrud(_ text: String) -> String {
        func isCrud(_ byte: UInt8) -> Bool { byte <= 32 || ".,:;<>\"\\'".utf8.contains(byte) }
        var bytes = Array(text.utf8)[...]
        while let first = bytes.first, isCrud(first) { bytes = bytes.dropFirst() }
        while let last = bytes.last, isCrud(last) { bytes = bytes.dropLast() }
        return String(
            decoding: bytes.filter { $0 != 0x0a && $0 != UInt8(ascii: "<") && $0 != UInt8(ascii: ">") }, as: UTF8.self)
    }
}
