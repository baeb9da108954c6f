import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `-c`, `--config-env` and `-C` before the command, read as git reads them: the configuration
/// they give equals git's, and their mistakes are git's.
@Suite("global options")
struct GlobalOptionsTests {
    @Test(arguments: [
        ["-c", "a.b=1", "config", "--list"], ["-c", "a.b", "-c", "A.Sub.C=x=y", "config", "--list"],
        ["--config-env=a.b=MYVAR", "-c", "c.d=", "config", "--list"],
        ["--config-env", "x.y=MYVAR", "config", "--list"],
        ["-C", "", "-c", "it's.ok=v!", "config", "--list"], ["-C", "sub", "-c", "a.b=1", "config", "--list"],
        ["-c", "bad", "config", "--list"],
    ])
    func configurationAsGitGivesIt(_ words: [String]) throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-global-options")
        try FileManager.default.createDirectory(atPath: directory.appending("sub"), withIntermediateDirectories: true)
        let environment = configEnvironment(
            home: directory.path, extra: ["MYVAR": "from the environment", "GIT_CONFIG_PARAMETERS": "'env.first'='1'"])
        let options = try GlobalOptions(words, environment: environment)
        #expect(options.remaining == ["config", "--list"])
        #expect(
            options.directories
                == words.enumerated().compactMap {
                    $0.element != "" && $0.offset > 0 && words[$0.offset - 1] == "-C" ? $0.element : nil
                })
        let output = try gitExactly(words + ["-z", "--show-scope"], environment: environment, in: directory.path)
        do {
            let configuration = try GitConfiguration.load(environment: options.environment(updating: environment))
            #expect(output.status == 0)
            #expect(
                configuration.entries.map { ListedEntry($0, scope: true) }
                    == ListedEntry.parse(output.standardOutput, scope: true))
        } catch {
            #expect(error.description == fatalMessage(output))
        }
    }

    @Test(arguments: [
        (["-c"], "-c expects a configuration string", false), (["-C"], "no directory given for '-C' option", false),
        (["--config-env"], "no config key given for --config-env", false),
        (["--config-env=nokey", "config", "-l"], "invalid config format: nokey", true),
        (["--config-env=a.b=", "config", "-l"], "missing environment variable name for configuration 'a.b'", true),
        (
            ["--config-env=a.b=NOPE_VAR", "config", "-l"],
            "missing environment variable 'NOPE_VAR' for configuration 'a.b'", true
        ),
    ])
    func mistakesAsGitReportsThem(_ words: [String], _ message: String, _ dies: Bool) throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-global-options")
        let output = try gitExactly(words, environment: configEnvironment(home: directory.path), in: directory.path)
        #expect(throws: GlobalOptions.Failure(message: message, dies: dies)) {
            try GlobalOptions(words, environment: [:])
        }
        if dies {
            #expect(fatalMessage(output) == message && output.status == 128)
        } else {
            #expect(output.errorText.hasPrefix(message + "\n") && output.status == 129)
        }
    }

    @Test func aDirectoryThatCannotBeEnteredIsGitsError() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-global-options")
        let missing = directory.appending("missing")
        let output = try gitExactly(["-C", missing, "config", "-l"], environment: [:], in: directory.path)
        let before = FileManager.default.currentDirectoryPath
        #expect(throws: GlobalOptions.Failure(message: fatalMessage(output) ?? "", dies: true)) {
            try GlobalOptions(["-C", "", "-C", missing, "status"], environment: [:]).changeDirectories()
        }
        #expect(FileManager.default.currentDirectoryPath == before)
    }
}
