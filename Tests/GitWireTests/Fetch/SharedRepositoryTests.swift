import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `core.sharedRepository` against git's: fetch into, and push from, copies of one repository
/// with the setting, under `umask 022`, `077` and `002`, the mode of every file and directory compared
/// (`find -printf '%m %P'`, object names masked). gitwire ignored the setting: refs and reflogs
/// `0644`, new directories `0755` (git: `0664`, `2775` with `group`).
@Suite struct SharedRepositoryTests {
    struct Scenario: Sendable {
        let directory: TemporaryDirectory
        var upstream: String { directory.appending("up.git") }
        var base: String { directory.appending("base") }
    }

    /// An upstream with `main`, a clone of it, and then new commits upstream on `main`, on a
    /// branch two directories deep, and a tag (what a fetch into the clone brings), and a branch
    /// deleted (pruned from the clone's `packed-refs`).
    static let scenario = Result<Scenario, any Error> {
        let scenario = Scenario(directory: try TemporaryDirectory(prefix: "gitwire-shared"))
        let work = scenario.directory.appending("work")
        try git(["init", "-q", "--bare", "-b", "main", scenario.upstream])
        try git(["clone", "-q", scenario.upstream, work])
        try git(["commit", "-q", "--allow-empty", "-m", "first"], in: work)
        try git(["push", "-q", "origin", "main", "main:gone"], in: work)
        try git(["clone", "-q", "file://\(scenario.upstream)", scenario.base])
        try git(["push", "-q", "origin", ":gone"], in: work)
        try "content\n".write(toFile: "\(work)/file", atomically: false, encoding: .utf8)
        try git(["add", "file"], in: work)
        try git(["commit", "-q", "-m", "second"], in: work)
        try git(["tag", "-a", "-m", "tag", "v1"], in: work)
        try git(["push", "-q", "origin", "main", "main:refs/heads/new/deep/branch", "v1"], in: work)
        return scenario
    }

    static let values = ["group", "all", "0640", "0660", "umask", "false"]
    /// `002` too: git makes its lock files (so refs and `packed-refs`), `FETCH_HEAD`, `config`,
    /// `HEAD` and directories `0666`/`0777` less the umask; gitwire made them `0644`/`0755`.
    static let umasks = ["022", "077", "002"]

    /// Every file and directory below `directory` as `<mode> <path>`, sorted, object and pack
    /// names masked.
    static func modes(_ directory: String) throws -> [String] {
        let listing = try run(["find", ".", "-printf", "%m %P\\n"], in: directory).text
        let hex = try Regex("[0-9a-f]{38,64}")
        return listing.split(separator: "\n").map { String($0).replacing(hex, with: "X") }.sorted()
    }

    /// Runs `arguments` under `umask`.
    @discardableResult
    static func underUmask(_ umask: String, _ arguments: [String], in directory: String) throws -> ProcessOutput {
        try run(
            ["sh", "-c", "umask \(umask) && exec \"$@\"", "sh"] + arguments, in: directory,
            environment: reproducibleGitEnvironment)
    }

    /// A copy of the clone for `side` with `core.sharedRepository` set to `value`.
    static func copy(_ scenario: Scenario, _ name: String, value: String) throws -> String {
        let path = scenario.directory.appending(name)
        try run(["cp", "-a", scenario.base, path])
        try git(["config", "core.sharedRepository", value], in: path)
        return path
    }

    /// A fetch of new branches (one in new directories), a tag and a pack (git keeps its pack
    /// with `transfer.unpackLimit=1`, as gitwire keeps every pack), pruning a packed ref.
    @Test(arguments: values, umasks)
    func fetchMakesWhatGitMakes(value: String, umask: String) throws {
        let scenario = try Self.scenario.get()
        var listings: [[String]] = []
        for (side, command) in [("git", "git"), ("gitwire", gitwireExecutable)] {
            let path = try Self.copy(scenario, "fetch-\(value)-\(umask)-\(side)", value: value)
            try Self.underUmask(
                umask, [command, "-c", "transfer.unpackLimit=1", "fetch", "-q", "--prune", "origin"], in: path)
            listings.append(try Self.modes(path))
        }
        #expect(listings[1] == listings[0])
        if value == "group" && umask == "022" {
            #expect(listings[0].contains("2775 .git/refs/remotes/origin/new"))
            #expect(listings[0].contains("664 .git/refs/tags/v1"))
            #expect(listings[0].contains("664 .git/packed-refs"))
        }
    }

    /// `push -u` over `file://` into a copy of the upstream (receive-pack is git's, so only the
    /// pushing repository is compared): its remote-tracking ref in new directories, its reflog,
    /// the configuration rewritten.
    @Test(arguments: values, umasks)
    func pushMakesWhatGitMakes(value: String, umask: String) throws {
        let scenario = try Self.scenario.get()
        var listings: [[String]] = []
        for (side, command) in [("git", "git"), ("gitwire", gitwireExecutable)] {
            let path = try Self.copy(scenario, "push-\(value)-\(umask)-\(side)", value: value)
            let target = scenario.directory.appending("push-\(value)-\(umask)-\(side).git")
            try run(["cp", "-a", scenario.upstream, target])
            try git(["remote", "add", "target", "file://\(target)"], in: path)
            try Self.underUmask(
                umask, [command, "push", "-q", "-u", "target", "main:refs/heads/pushed/deep/main"], in: path)
            listings.append(try Self.modes(path))
        }
        #expect(listings[1] == listings[0])
    }

    /// `clone --no-checkout` with the setting given to the command (`git -c`: everything the
    /// clone makes follows it) or to the clone (`clone -c`: only the pack, which git's
    /// `index-pack` makes reading the new configuration). The templates' `hooks` and `branches`,
    /// which gitwire does not copy, are left out.
    @Test(arguments: values, umasks)
    func cloneMakesWhatGitMakes(value: String, umask: String) throws {
        let scenario = try Self.scenario.get()
        for (form, bare) in [("command", false), ("clone", false), ("command", true)] {
            var listings: [[String]] = []
            for (side, command) in [("git", "git"), ("gitwire", gitwireExecutable)] {
                let name = "clone-\(form)-\(bare)-\(value)-\(umask)-\(side)"
                let setting = ["-c", "core.sharedRepository=\(value)"]
                let arguments =
                    form == "command"
                    ? [command] + setting + ["clone", "-q", "--no-checkout"]
                    : [command, "clone", "-q", "--no-checkout"] + setting
                try Self.underUmask(
                    umask, arguments + (bare ? ["--bare"] : []) + ["file://\(scenario.upstream)", name],
                    in: scenario.directory.path)
                listings.append(
                    try Self.modes(scenario.directory.appending(name)).filter {
                        !$0.contains("hooks") && !$0.contains("branches")
                    })
            }
            #expect(listings[1] == listings[0], "\(form) \(bare)")
        }
    }
}
