import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// A `core.sharedRepository` git refuses (an octal mode without the owner's read and write,
/// a value that is no boolean): git dies when it first makes a file in the repository (its
/// `get_shared_repository` reads the setting then), with `fatal: problem with
/// core.sharedRepository filemode value (0400).` and why, exit 128; a command that makes no
/// file (a fetch with nothing new) succeeds. gitwire took the value as no setting at all.
@Suite struct SharedRepositoryRefusalTests {
    /// An upstream with `main`, and a clone of it.
    static let scenario = Result { () throws -> TemporaryDirectory in
        let directory = try TemporaryDirectory(prefix: "gitwire-shared-refused")
        let upstream = directory.appending("up.git")
        let work = directory.appending("work")
        try git(["init", "-q", "--bare", "-b", "main", upstream])
        try git(["clone", "-q", upstream, work])
        try git(["commit", "-q", "--allow-empty", "-m", "first"], in: work)
        try git(["push", "-q", "origin", "main"], in: work)
        try git(["clone", "-q", "file://\(upstream)", directory.appending("base")])
        return directory
    }

    /// git's and gitwire's `arguments` in copies of the clone whose `config` sets `value`
    /// (written into the file: `git config` itself would die of it).
    static func compare(_ value: String, _ arguments: [String], input: [UInt8] = []) throws {
        let directory = try Self.scenario.get()
        var outputs: [ProcessOutput] = []
        var modes: [String] = []
        // Without git's `maintenance run --auto` after a fetch, which gitwire does not run: that
        // child dies of the value too (after a fetch that made nothing, whose status stays 0).
        let environment = reproducibleGitEnvironment.merging([
            "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "maintenance.auto", "GIT_CONFIG_VALUE_0": "false",
        ]) { $1 }
        for (side, command) in [("git", "git"), ("gitwire", gitwireExecutable)] {
            let name = arguments.joined(separator: "-").replacing("/", with: "_").replacing(":", with: "_")
            let copy = directory.appending("\(side)-\(name)-\(value)")
            try? FileManager.default.removeItem(atPath: copy)
            try run(["cp", "-a", directory.appending("base"), copy])
            let config = "\(copy)/.git/config"
            let text = try String(contentsOfFile: config, encoding: .utf8) + "[core]\n\tsharedRepository = \(value)\n"
            try text.write(toFile: config, atomically: false, encoding: .utf8)
            outputs.append(
                try run(
                    [command] + arguments, in: copy, environment: environment, input: input, check: false))
            // Nothing half-made left behind: no lock files.
            let locks = try run(["find", ".git", "-name", "*.lock"], in: copy).text
            #expect(locks.isEmpty, "\(side): \(locks)")
            // What a value taken does: the modes of the objects and their directories.
            modes.append(try run(["sh", "-c", "find .git/objects -printf '%m %p\\n' | sort"], in: copy).text)
        }
        #expect(modes[1] == modes[0], "\(value) \(arguments)")
        #expect(outputs[1].status == outputs[0].status, "\(value) \(arguments)")
        #expect(outputs[1].errorText == outputs[0].errorText, "\(value) \(arguments)")
        #expect(outputs[1].text == outputs[0].text, "\(value) \(arguments)")
    }

    /// `0999` and `08` are octal to git's `strtol` up to the 8 or 9, so no mode: git reads them
    /// as booleans (`git_config_bool`), which they are not either (`strtoimax` with base 0 stops
    /// there too), and dies; `0x1ff`, `1k` and `9` are numbers to it (true: `group`); the empty
    /// value is octal 0 (`umask`). gitwire took `0999` and `08` (Swift's `Int` reads them) and
    /// refused `0x1ff` and `1k`.
    @Test(arguments: ["0400", "0060", "7", "-0400", "0o400", "0600", "group", "0999", "08", "0x1ff", "1k", "9", "\"\""])
    func refusedWhenAFileIsMade(value: String) throws {
        // A ref that moves (its lock file is the first file made).
        try Self.compare(value, ["fetch", "-q", "origin", "main:refs/heads/copy"])
        // Nothing to make: git reads no setting and succeeds.
        try Self.compare(value, ["fetch", "-q", "origin"])
        try Self.compare(value, ["hash-object", "-w", "--stdin"], input: Array("content\n".utf8))
        try Self.compare(value, ["hash-object", "--stdin"], input: Array("content\n".utf8))
    }
}

/// A push with a refused `core.sharedRepository`: git's push sends the pack, the remote takes the
/// ref, git prints its report (`To …` and the ref line) and then dies taking the remote-tracking
/// ref's lock (exit 128, the tracking ref unmoved). gitwire died before its report.
@Suite struct SharedRepositoryPushRefusalTests {
    @Test(arguments: [
        ["-c", "core.sharedRepository=0400", "push"], ["-c", "core.sharedRepository=0999", "push", "-v"],
    ])
    func reportBeforeDying(options: [String]) throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-shared-push")
        let upstream = directory.appending("up.git")
        let work = directory.appending("work")
        try bareUpstreamWithClone(upstream: upstream, work: work)
        try git(["commit", "-q", "--allow-empty", "-m", "second"], in: work)
        var outputs: [ProcessOutput] = []
        var refs: [String] = []
        for (side, command) in [("git", "git"), ("gitwire", gitwireExecutable)] {
            let remote = directory.appending("\(side)-up.git")
            let local = directory.appending("\(side)-work")
            try run(["cp", "-a", upstream, remote])
            try run(["cp", "-a", work, local])
            try git(["remote", "set-url", "origin", "file://\(directory.appending("up.git"))"], in: local)
            // Both sides show the same URL: each pushes to its own copy through `pushurl`.
            try git(["config", "remote.origin.pushurl", remote], in: local)
            outputs.append(try run([command] + options + ["origin", "main"], in: local, check: false))
            refs.append(
                try gitText(["for-each-ref"], in: local) + "\n" + gitText(["for-each-ref"], in: remote))
            let locks = try run(["find", ".git", "-name", "*.lock"], in: local).text
            #expect(locks.isEmpty, "\(side): \(locks)")
        }
        #expect(outputs[0].status == 128)
        #expect(outputs[0].errorText.contains("To \(directory.appending("git-up.git"))\n"), "\(outputs[0].errorText)")
        #expect(outputs[1].status == outputs[0].status)
        let theirs = outputs[0].errorText.replacingOccurrences(of: "git-up.git", with: "gitwire-up.git")
        #expect(outputs[1].errorText == theirs)
        #expect(outputs[1].text == outputs[0].text)
        #expect(refs[1] == refs[0])
    }
}
