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
        }
        #expect(outputs[1].status == outputs[0].status, "\(value) \(arguments)")
        #expect(outputs[1].errorText == outputs[0].errorText, "\(value) \(arguments)")
        #expect(outputs[1].text == outputs[0].text, "\(value) \(arguments)")
    }

    @Test(arguments: ["0400", "0060", "7", "-0400", "0o400", "0600", "group"])
    func refusedWhenAFileIsMade(value: String) throws {
        // A ref that moves (its lock file is the first file made).
        try Self.compare(value, ["fetch", "-q", "origin", "main:refs/heads/copy"])
        // Nothing to make: git reads no setting and succeeds.
        try Self.compare(value, ["fetch", "-q", "origin"])
        try Self.compare(value, ["hash-object", "-w", "--stdin"], input: Array("content\n".utf8))
        try Self.compare(value, ["hash-object", "--stdin"], input: Array("content\n".utf8))
    }
}
