import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `clone --template` (and `GIT_TEMPLATE_DIR`) and `--separate-git-dir` against git's: the same
/// messages and exit status, and the same git directory, every path of it but the objects, with
/// its type, mode and bytes (the template's hooks, link and `config` as git's init copies and
/// edits them). gitwire refused both options as unknown.
extension CloneWorkTreeTests {
    /// Every path under `directory` but `objects/`, with its type, permission bits and bytes
    /// (a link's target), `base` in a file's bytes written `<base>`.
    func tree(_ directory: String, base: String) throws -> [String: String] {
        var result: [String: String] = [:]
        let manager = FileManager.default
        guard let enumerator = manager.enumerator(atPath: directory) else { return result }
        for case let path as String in enumerator where path != "objects" && !path.hasPrefix("objects/") {
            let full = "\(directory)/\(path)"
            let attributes = try manager.attributesOfItem(atPath: full)
            let mode = String((attributes[.posixPermissions] as? Int) ?? 0, radix: 8)
            switch attributes[.type] as? FileAttributeType {
            case .typeSymbolicLink?:
                result[path] = "link \(try manager.destinationOfSymbolicLink(atPath: full))"
            case .typeDirectory?:
                result[path] = "directory \(mode)"
            default:
                let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: full)), as: UTF8.self)
                result[path] = "file \(mode) " + text.replacingOccurrences(of: base, with: "<base>")
            }
        }
        return result
    }

    /// A template with hooks (one executable, one private), a link, a hidden entry (not
    /// copied), an empty directory and a `config` with a comment and a `core` entry git's init
    /// keeps (`logAllRefUpdates`).
    static let template = Result { () throws -> String in
        let source = try CloneWorkTreeTests.source.get()
        let template = source.directory.appending("template")
        for directory in ["hooks", "info", "empty", ".hidden"] {
            try FileManager.default.createDirectory(
                atPath: "\(template)/\(directory)", withIntermediateDirectories: true)
        }
        let files: [(String, String, Int)] = [
            ("hooks/pre-commit", "#!/bin/sh\nexit 0\n", 0o755), ("hooks/notes", "x\n", 0o600),
            ("info/exclude", "*.o\n", 0o644), ("description", "mine\n", 0o644), (".hidden/f", "h\n", 0o644),
            (
                "config",
                "# from the template\n[core]\n\thooksPath = hooks\n\tlogAllRefUpdates = true\n[user]\n"
                    + "\tname = T ; t\n", 0o644
            ),
        ]
        for (name, text, mode) in files {
            try text.write(toFile: "\(template)/\(name)", atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: "\(template)/\(name)")
        }
        try FileManager.default.createSymbolicLink(atPath: "\(template)/described", withDestinationPath: "description")
        return template
    }

    @Test(arguments: [0, 2])
    func templatesAreCopiedAsGitCopiesThem(version: Int) throws {
        let source = try Self.source.get()
        let template = try Self.template.get()
        let url = source.daemon.url("source")
        for (index, (options, environment)) in [
            (["--template", template], [String: String]()), (["--template=\(template)", "--bare"], [:]),
            (["--template=\(template)", "-c", "a.b=c", "--single-branch"], [:]),
            (["--template=\(source.directory.appending("nowhere"))"], [:]), (["--template="], [:]),
            ([], ["GIT_TEMPLATE_DIR": template]),
        ].enumerated() {
            let base = source.directory.appending("clones/template-\(version)-\(index)")
            var results: [String: (status: Int32, errorText: String, tree: [String: String])] = [:]
            for side in ["git", "ours"] {
                try FileManager.default.createDirectory(atPath: "\(base)/\(side)", withIntermediateDirectories: true)
                var environment = reproducibleGitEnvironment.merging(environment) { $1 }
                environment["GIT_CONFIG_NOSYSTEM"] = "1"
                let arguments = ["clone", "--no-checkout"] + options + [url, "repo"]
                let result =
                    side == "git"
                    ? try git(
                        ["-c", "protocol.version=\(version)"] + arguments, in: "\(base)/git", environment: environment,
                        check: false)
                    : try gitwire(
                        ["clone", "--protocol-version=\(version)"] + options + [url, "repo"], in: "\(base)/ours",
                        environment: environment)
                let gitDirectory = options.contains("--bare") ? "\(base)/\(side)/repo" : "\(base)/\(side)/repo/.git"
                results[side] = (result.status, result.errorText, try tree(gitDirectory, base: "\(base)/\(side)"))
            }
            let context = "clone \(options) \(environment) (v\(version))"
            let (ours, theirs) = (results["ours"]!, results["git"]!)
            #expect(ours.status == theirs.status, "\(context)")
            #expect(ours.errorText == theirs.errorText, "\(context)")
            for key in Set(theirs.tree.keys).union(ours.tree.keys).sorted() {
                #expect(ours.tree[key] == theirs.tree[key], "\(context): \(key)")
            }
        }
    }

    /// A template whose `config` declares a repository format git does not read (a version
    /// past 1, unknown extensions in version 1, a version-1 extension in version 0): git copies
    /// nothing from it, with a warning in `verify_repository_format`'s words; the formats it
    /// reads are copied. gitwire copied every template.
    @Test func templatesOfAnUnknownFormatAreNotCopied() throws {
        let source = try Self.source.get()
        let url = source.daemon.url("source")
        for (index, config) in [
            "[core]\n\trepositoryFormatVersion = 99\n",
            "[core]\n\trepositoryformatversion = 1\n[extensions]\n\tfoo = x\n\tBar = y\n",
            "[core]\n\trepositoryformatversion = 1\n[extensions]\n\tfoo = x\n\tworktreeConfig = true\n",
            "[core]\n\trepositoryformatversion = 0\n[extensions]\n\tobjectFormat = sha256\n",
            "[core]\n\trepositoryformatversion = 0\n[extensions]\n\tfoo = x\n",
            "[core]\n\trepositoryformatversion = 1\n[extensions]\n\tnoop = x\n",
        ].enumerated() {
            let base = source.directory.appending("clones/format-\(index)")
            let template = "\(base)/template"
            try FileManager.default.createDirectory(atPath: "\(template)/hooks", withIntermediateDirectories: true)
            try "x\n".write(toFile: "\(template)/hooks/notes", atomically: true, encoding: .utf8)
            try config.write(toFile: "\(template)/config", atomically: true, encoding: .utf8)
            var results: [String: (status: Int32, errorText: String, tree: [String: String])] = [:]
            for side in ["git", "ours"] {
                try FileManager.default.createDirectory(atPath: "\(base)/\(side)", withIntermediateDirectories: true)
                let arguments = ["--bare", "--template", template, url, "repo"]
                let result =
                    side == "git"
                    ? try git(["clone"] + arguments, in: "\(base)/git", check: false)
                    : try gitwire(["clone"] + arguments, in: "\(base)/ours", environment: reproducibleGitEnvironment)
                results[side] = (
                    result.status, result.errorText, try tree("\(base)/\(side)/repo", base: "\(base)/\(side)")
                )
            }
            let (ours, theirs) = (results["ours"]!, results["git"]!)
            #expect(ours.status == theirs.status, "\(config)")
            #expect(ours.errorText == theirs.errorText, "\(config)")
            #expect(theirs.errorText.contains("not copying templates") == (index < 4), "\(config)")
            for key in Set(theirs.tree.keys).union(ours.tree.keys).sorted() {
                #expect(ours.tree[key] == theirs.tree[key], "\(config): \(key)")
            }
        }
    }

    /// A bare clone under `core.logAllRefUpdates` (`true` or `always`, from `-c`): git logs
    /// `HEAD` alone (the refs go to `packed-refs` unlogged), a line without a message when
    /// `HEAD` names a branch, `clone: from <url>` when it is detached (at a tag, or the remote's
    /// detached `HEAD`), either from the commit of the branch its init named (`init.defaultBranch`,
    /// else `master`) if the clone has it, else the zero id; nothing for an empty repository.
    /// gitwire's bare clone wrote no reflog.
    @Test(arguments: [0, 2])
    func bareClonesLogHeadAsGitDoes(version: Int) throws {
        let source = try Self.source.get()
        let all = "core.logAllRefUpdates=true"
        for (index, (before, options, path)) in [
            ([], ["--bare", "-c", all], "source"), ([], ["--mirror", "-c", "core.logAllRefUpdates=always"], "source"),
            (["-c", "init.defaultBranch=trunk"], ["--bare", "-b", "v1", "-c", all], "source"),
            (["-c", all], ["--bare", "-b", "light"], "source"), ([], ["--bare", "-c", all], "detached.git"),
            (["-c", "init.defaultBranch=trunk"], ["--bare", "-c", all], "source"),
            ([], ["--bare", "-c", all], "empty.git"), ([], ["--bare"], "source"),
        ].enumerated() {
            let base = source.directory.appending("clones/bare-log-\(version)-\(index)")
            var results: [String: (status: Int32, errorText: String, tree: [String: String])] = [:]
            for side in ["git", "ours"] {
                try FileManager.default.createDirectory(atPath: "\(base)/\(side)", withIntermediateDirectories: true)
                let url = source.daemon.url(path)
                let result =
                    side == "git"
                    ? try git(
                        before + ["-c", "protocol.version=\(version)", "clone"] + options + [url, "repo"],
                        in: "\(base)/git", check: false)
                    : try gitwire(
                        before + ["clone", "--protocol-version=\(version)"] + options + [url, "repo"],
                        in: "\(base)/ours", environment: reproducibleGitEnvironment)
                results[side] = (
                    result.status, result.errorText, try tree("\(base)/\(side)/repo", base: "\(base)/\(side)")
                )
            }
            let context = "\(before) clone \(options) \(path) (v\(version))"
            let (ours, theirs) = (results["ours"]!, results["git"]!)
            #expect(ours.status == theirs.status, "\(context)")
            #expect(ours.errorText == theirs.errorText, "\(context)")
            #expect(theirs.tree.keys.contains("logs/HEAD") == (index < 6), "\(context)")
            for key in Set(theirs.tree.keys).union(ours.tree.keys).sorted() {
                #expect(ours.tree[key] == theirs.tree[key], "\(context): \(key)")
            }
        }
    }

    @Test(arguments: [0, 2])
    func separateGitDirectoriesAreMadeAsGitMakesThem(version: Int) throws {
        let source = try Self.source.get()
        let url = source.daemon.url("source")
        for (index, (options, before)) in [
            (["--separate-git-dir", "sep.git"], ""), (["--separate-git-dir=sub/../sep.git", "-q"], "sub"),
            (["--separate-git-dir=sep.git", "--bare"], ""), (["--separate-git-dir=sep.git", "--mirror"], ""),
            (["--separate-git-dir=sep.git"], "sep.git"), (["--separate-git-dir=sep.git"], "sep.git/file"),
        ].enumerated() {
            let base = source.directory.appending("clones/separate-\(version)-\(index)")
            var results: [String: (status: Int32, errorText: String, tree: [String: String], link: String?)] = [:]
            for side in ["git", "ours"] {
                let here = "\(base)/\(side)"
                try FileManager.default.createDirectory(atPath: here, withIntermediateDirectories: true)
                if before.hasSuffix("/file") {
                    try FileManager.default.createDirectory(
                        atPath: "\(here)/\(before.dropLast(5))", withIntermediateDirectories: true)
                    try "x\n".write(toFile: "\(here)/\(before)", atomically: true, encoding: .utf8)
                } else if !before.isEmpty {
                    try FileManager.default.createDirectory(
                        atPath: "\(here)/\(before)", withIntermediateDirectories: true)
                }
                let result =
                    side == "git"
                    ? try git(
                        ["-c", "protocol.version=\(version)", "clone", "--no-checkout"] + options + [url, "repo"],
                        in: here, check: false)
                    : try gitwire(
                        ["clone", "--protocol-version=\(version)"] + options + [url, "repo"], in: here,
                        environment: reproducibleGitEnvironment)
                let link = try? String(contentsOfFile: "\(here)/repo/.git", encoding: .utf8)
                results[side] = (
                    result.status, result.errorText, try tree("\(here)/sep.git", base: here),
                    link?.replacingOccurrences(of: here, with: "<base>")
                )
            }
            let context = "clone \(options) (v\(version))"
            let (ours, theirs) = (results["ours"]!, results["git"]!)
            #expect(ours.status == theirs.status, "\(context)")
            #expect(ours.errorText == theirs.errorText, "\(context)")
            #expect(ours.link == theirs.link, "\(context)")
            #expect(
                FileManager.default.fileExists(atPath: "\(base)/ours/repo")
                    == FileManager.default.fileExists(atPath: "\(base)/git/repo"), "\(context)")
            for key in Set(theirs.tree.keys).union(ours.tree.keys).sorted() {
                #expect(ours.tree[key] == theirs.tree[key], "\(context): \(key)")
            }
        }
    }

    /// Without git installed (git's own template directory missing and none named), a clone
    /// writes gitwire's own `description` and `info/exclude` and warns about nothing: the
    /// directory is git's, not one the user chose. It printed `warning: templates not found in
    /// /usr/share/git-core/templates` on every clone. A mount namespace (a tmpfs over
    /// `/usr/share/git-core`) stands for a machine without git.
    @Test func aMachineWithoutGitsTemplates() throws {
        let source = try Self.source.get()
        let target = source.directory.appending("clones/without-git-templates")
        let script = "mount -t tmpfs none /usr/share/git-core && exec \"$0\" clone -q \"$1\" \"$2\""
        let output = try run(
            ["unshare", "-rm", "sh", "-c", script, gitwireExecutable, source.path, target],
            environment: reproducibleGitEnvironment, check: false)
        #expect(output.status == 0, "\(output.errorText)")
        #expect(output.errorText.isEmpty, "\(output.errorText)")
        #expect(FileManager.default.fileExists(atPath: "\(target)/.git/description"))
        #expect(FileManager.default.fileExists(atPath: "\(target)/.git/info/exclude"))
        #expect(!FileManager.default.fileExists(atPath: "\(target)/.git/hooks"))
    }
}
