import GitWire
import Glibc

/// Ref transactions checked against git: the input chooses refs that exist (loose or packed,
/// `x` and `x/y` style names in plenty) and a list of updates (creations, changes to commits or
/// to a blob, deletions, expected old values, the same name twice); `RefStore.apply` runs them
/// on one copy of a repository and `git update-ref` on another: with `atomic`, as one
/// `git update-ref --stdin` transaction, else as git fetch runs them (the deletions first, then
/// one `git update-ref` per update, in order). Both must succeed or fail alike (ref by ref
/// without `atomic`), end with the same refs (`git for-each-ref`), and leave no `*.lock`.
public enum FuzzRefs {
    /// What differed, or nil when gitwire and git agree.
    public static func compare(_ data: [UInt8], atomic: Bool) throws -> String? {
        var input = FuzzInput(data)
        let seed = try Seed.shared()
        let scratch = try makeScratch()
        defer { _ = try? ChildProcess.run(["rm", "-rf", scratch], input: []) }
        let ours = "\(scratch)/ours.git"
        let theirs = "\(scratch)/theirs.git"
        _ = try ChildProcess.run(["cp", "-a", seed.path, ours], input: [])

        // Refs that exist: each loose or packed; no name a directory of another.
        var packed: [(String, ObjectID)] = []
        var loose: [(String, ObjectID)] = []
        var taken: [String] = []
        for _ in 0..<Int(input.byte() % 7) {
            let name = refName(&input)
            let value = seed.commits[Int(input.byte()) % seed.commits.count]
            let conflict = taken.contains { $0 != name && ($0.hasPrefix(name + "/") || name.hasPrefix($0 + "/")) }
            if conflict || taken.contains(name) { continue }
            taken.append(name)
            if input.byte() & 1 == 0 { packed.append((name, value)) } else { loose.append((name, value)) }
        }
        var packedText = "# pack-refs with: peeled fully-peeled sorted \n"
        var seen = Set<String>()
        for (name, value) in packed.sorted(by: { $0.0 < $1.0 }) where seen.insert(name).inserted {
            packedText += "\(value.hex) \(name)\n"
        }
        try write(Array(packedText.utf8), to: "\(ours)/packed-refs")
        for (name, value) in loose {
            _ = try ChildProcess.run(["mkdir", "-p", parent(of: "\(ours)/\(name)")], input: [])
            try write(Array("\(value.hex)\n".utf8), to: "\(ours)/\(name)")
        }
        // Sometimes another process holds the lock of one name: it must stay, and block that ref.
        var foreignLock: String?
        if input.byte() % 4 == 0 {
            let name = refName(&input)
            let path = "\(ours)/\(name).lock"
            if (try? ChildProcess.run(["mkdir", "-p", parent(of: path)], input: []).status) == 0,
                (try? write([], to: path)) != nil
            {
                foreignLock = "\(name).lock"
            }
        }
        _ = try ChildProcess.run(["cp", "-a", ours, theirs], input: [])

        // The updates.
        var updates: [RefUpdate] = []
        let values = seed.commits + [seed.blob]
        for _ in 0..<(1 + Int(input.byte() % 6)) {
            let name = refName(&input)
            let choice = input.byte()
            let newID: ObjectID? = choice % 5 == 4 ? nil : values[Int(choice % 5) % values.count]
            var expected: ObjectID?
            switch input.byte() % 4 {
            case 1: expected = (loose.last { $0.0 == name } ?? packed.last { $0.0 == name })?.1
            case 2: expected = seed.commits[0]
            default: expected = nil
            }
            updates.append(RefUpdate(name: name, newID: newID, expectedOldID: expected))
        }

        let store = RefStore(gitDirectory: ours, format: .sha1)
        let objects = try ObjectDatabase(gitDirectory: ours)
        var report = ""
        if atomic {
            var ourError: String?
            do {
                try store.apply(updates, atomic: true, objectType: { try objects.object($0)?.type })
            } catch {
                ourError = "\(error)"
            }
            var lines = ""
            for update in updates {
                if let new = update.newID {
                    lines += "update \(update.name) \(new.hex)\(update.expectedOldID.map { " \($0.hex)" } ?? "")\n"
                } else {
                    lines += "delete \(update.name)\(update.expectedOldID.map { " \($0.hex)" } ?? "")\n"
                }
            }
            let git = try ChildProcess.run(
                ["git", "--git-dir=\(theirs)", "update-ref", "--stdin"], input: Array(lines.utf8))
            if (git.status == 0) != (ourError == nil) {
                report +=
                    "git: \(git.status) \(String(decoding: git.standardError, as: UTF8.self)); ours: \(ourError ?? "ok")\n"
            }
        } else {
            let failures = try store.apply(updates, atomic: false, objectType: { try objects.object($0)?.type })
            let ordered = updates.filter { $0.newID == nil } + updates.filter { $0.newID != nil }
            var gitFailed: Set<String> = []
            for update in ordered {
                var arguments = ["git", "--git-dir=\(theirs)", "update-ref"]
                if let new = update.newID {
                    arguments += [update.name, new.hex] + (update.expectedOldID.map { [$0.hex] } ?? [])
                } else {
                    arguments += ["-d", update.name] + (update.expectedOldID.map { [$0.hex] } ?? [])
                }
                if try ChildProcess.run(arguments, input: []).status != 0 { gitFailed.insert(update.name) }
            }
            let ourFailed = Set(failures.map(\.name))
            // A name updated twice may fail once and succeed once: compare names only where
            // each appears once.
            let once = Set(updates.map(\.name).filter { name in updates.filter { $0.name == name }.count == 1 })
            if ourFailed.intersection(once) != gitFailed.intersection(once) {
                report += "failed refs: git \(gitFailed.sorted()), ours \(ourFailed.sorted()) \(failures)\n"
            }
        }
        let ourRefs = try ChildProcess.run(["git", "--git-dir=\(ours)", "for-each-ref"], input: [])
        let theirRefs = try ChildProcess.run(["git", "--git-dir=\(theirs)", "for-each-ref"], input: [])
        if ourRefs.standardOutput != theirRefs.standardOutput || ourRefs.status != 0 {
            report += "refs differ:\n git: \(String(decoding: theirRefs.standardOutput, as: UTF8.self))"
            report += " ours: \(String(decoding: ourRefs.standardOutput + ourRefs.standardError, as: UTF8.self))"
        }
        let locks = try ChildProcess.run(["find", ours, "-name", "*.lock"], input: [])
        let expected = foreignLock.map { "\(ours)/\($0)\n" } ?? ""
        if String(decoding: locks.standardOutput, as: UTF8.self) != expected {
            report += "locks: \(String(decoding: locks.standardOutput, as: UTF8.self)), expected: \(expected)"
        }
        if report.isEmpty { return nil }
        let existing =
            "packed \(packed.map { "\($0.0)=\($0.1.hex.prefix(4))" }), loose \(loose.map { "\($0.0)=\($0.1.hex.prefix(4))" })"
        let asked = updates.map {
            "\($0.name)=\($0.newID?.hex.prefix(4) ?? "delete")/\($0.expectedOldID?.hex.prefix(4) ?? "-")"
        }
        return "existing: \(existing)\nforeign lock: \(foreignLock ?? "none")\nupdates: \(asked)\n\(report)"
    }

    /// The fuzz target: both modes; a difference from git stops the fuzzer.
    static func run(_ data: [UInt8]) {
        for atomic in [true, false] {
            do {
                if let difference = try compare(data, atomic: atomic) {
                    fatalError("ref transaction (atomic: \(atomic)) differs from git:\n\(difference)")
                }
            } catch {
                fatalError("ref transaction harness failed: \(error)")
            }
        }
    }

    /// A name under `refs/heads/` of one to three components from `a`, `b`, `c`, so that names
    /// and the directories of others meet often.
    private static func refName(_ input: inout FuzzInput) -> String {
        let byte = input.byte()
        let depth = 1 + Int(byte % 3)
        var parts: [String] = []
        var rest = Int(byte / 3)
        for _ in 0..<depth {
            parts.append(["a", "b", "c"][rest % 3])
            rest /= 3
        }
        return "refs/heads/" + parts.joined(separator: "/")
    }

    private static func parent(of path: String) -> String {
        String(path[..<path.lastIndex(of: "/")!])
    }

    private static func write(_ bytes: [UInt8], to path: String) throws {
        let file = try File.create(path, mode: 0o644)
        try file.write(bytes[...])
        try file.close()
    }

    private static func makeScratch() throws -> String {
        var template = Array("/tmp/gitwire-refs.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw SystemCallError("mkdtemp", Errno(rawValue: errno)) }
        return String(cString: made)
    }

    /// A bare repository with three commits and a blob, made once per process.
    private final class Seed: @unchecked Sendable {
        let path: String
        let commits: [ObjectID]
        let blob: ObjectID

        private static let made = Locked<Seed?>(nil)

        static func shared() throws -> Seed {
            try made.withLock { seed in
                if let seed { return seed }
                let fresh = try Seed()
                seed = fresh
                return fresh
            }
        }

        private init() throws {
            let path = try makeScratch() + "/seed.git"
            self.path = path
            func git(_ arguments: [String], input: String = "") throws -> String {
                let output = try ChildProcess.run(
                    ["git", "--git-dir=\(path)"] + arguments, input: Array(input.utf8),
                    environment: [
                        "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@example.org", "GIT_COMMITTER_NAME": "a",
                        "GIT_COMMITTER_EMAIL": "a@example.org", "GIT_AUTHOR_DATE": "1700000000 +0000",
                        "GIT_COMMITTER_DATE": "1700000000 +0000",
                    ])
                guard output.status == 0 else { throw SystemCallError("git \(arguments)", Errno(rawValue: EINVAL)) }
                return String(decoding: output.standardOutput, as: UTF8.self).split(separator: "\n").first.map(
                    String.init) ?? ""
            }
            _ = try ChildProcess.run(["git", "init", "-q", "--bare", path], input: [])
            let tree = try git(["hash-object", "-w", "-t", "tree", "--stdin"])
            var commits: [ObjectID] = []
            var parent: [String] = []
            for index in 0..<3 {
                let id = try git(["commit-tree", tree] + parent + ["-m", "c\(index)"])
                commits.append(ObjectID(hex: Array(id.utf8), format: .sha1)!)
                parent = ["-p", id]
            }
            self.commits = commits
            blob = ObjectID(
                hex: Array(try git(["hash-object", "-w", "--stdin"], input: "blob\n").utf8), format: .sha1)!
        }
    }
}
