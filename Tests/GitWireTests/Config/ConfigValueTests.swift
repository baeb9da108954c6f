import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// Typed values read as `git config --type=bool|int|path --get` reads them, errors included.
@Suite("config values")
struct ConfigValueTests {
    static let booleans: [String?] = [
        nil, "", "true", "TRUE", "Yes", "on", "ON", "false", "no", "Off", "0", "1", "2", "-1", "0x10", "1k", "010",
        "abc", " true", "true ", "tru", "99999999999", "2147483647", "2147483648", "-2147483647", "-2147483648",
        "2097151k", "2097152k", "0x", "00", "+1", " 1",
    ]

    static let integers: [String?] = [
        nil, "", "0", "1", "-1", "010", "0x1F", "0X1f", "1k", "1K", "1m", "1M", "1g", "1G", "1t", "1kb", " 5", "5 ",
        "+5", "-0", "9223372036854775807", "9223372036854775808", "-9223372036854775807", "-9223372036854775808",
        "8388607g", "8388608g", "8589934591k", "-8388608g", "0x", "08", "1.5", "abc", "k", "0k", "0x7fffffffffffffff",
        "99999999999999999999999", "\t7", "0xg", "-", "+", "0b1", "1e3", "9007199254740993",
    ]

    static let paths: [String?] = [
        "~/x", "~", "~/", "~root/y", "~root", "~nosuchuser/z", "%(prefix)/share/git", "%(prefix)", "%(prefix)x",
        "rel/path", "/abs/path", "a~b", "~~", "", nil,
    ]

    /// A global file with `a.v<n> = <value>` for each value, and the environment that reads it.
    static func setUp(_ values: [String?], home: String?) throws -> (TemporaryDirectory, [String: String]) {
        let directory = try TemporaryDirectory(prefix: "gitwire-config-values")
        var text = "[a]\n"
        for (index, value) in values.enumerated() {
            if let value {
                text += "\tv\(index) = \(String(decoding: ConfigWriter.quoted(value), as: UTF8.self))\n"
            } else {
                text += "\tv\(index)\n"
            }
        }
        let path = directory.appending("global")
        try writeConfigFile(path, text)
        var environment = ["GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": path]
        if let home { environment["HOME"] = home }
        return (directory, environment)
    }

    /// git's answer: the printed value, or its fatal message.
    static func git(_ type: String, _ name: String, _ environment: [String: String]) throws -> Result<
        String, ConfigTextError
    > {
        let output = try gitExactly(["config", "--type=\(type)", "--get", name], environment: environment)
        if output.status == 0 { return .success(String(output.text.dropLast())) }
        return .failure(ConfigTextError(text: fatalMessage(output) ?? output.errorText))
    }

    struct ConfigTextError: Error, Equatable { var text: String }

    static func ours<T>(show: (T) -> String, body: () throws(ConfigError) -> T?) -> Result<String, ConfigTextError> {
        do {
            guard let value = try body() else { return .failure(ConfigTextError(text: "unset")) }
            return .success(show(value))
        } catch {
            return .failure(ConfigTextError(text: error.description))
        }
    }

    @Test func booleansAsGitReadsThem() throws {
        let (directory, environment) = try Self.setUp(Self.booleans, home: "/nonexistent")
        _ = directory
        let configuration = try GitConfiguration.load(environment: environment)
        for index in Self.booleans.indices {
            let expected = try Self.git("bool", "a.v\(index)", environment)
            let actual = Self.ours(
                show: { $0 ? "true" : "false" },
                body: { () throws(ConfigError) in try configuration.bool("a.v\(index)") })
            #expect(actual == expected, "\(String(describing: Self.booleans[index]))")
        }
    }

    @Test func integersAsGitReadsThem() throws {
        let (directory, environment) = try Self.setUp(Self.integers, home: "/nonexistent")
        _ = directory
        let configuration = try GitConfiguration.load(environment: environment)
        for index in Self.integers.indices {
            let expected = try Self.git("int", "a.v\(index)", environment)
            let actual = Self.ours(
                show: { String($0) }, body: { () throws(ConfigError) in try configuration.int("a.v\(index)") })
            #expect(actual == expected, "\(String(describing: Self.integers[index]))")
        }
    }

    @Test(arguments: ["/home/someone", nil])
    func pathsAsGitExpandsThem(_ home: String?) throws {
        let (directory, environment) = try Self.setUp(Self.paths, home: home)
        _ = directory
        let configuration = try GitConfiguration.load(environment: environment)
        for index in Self.paths.indices {
            let expected = try Self.git("path", "a.v\(index)", environment)
            let actual = Self.ours(
                show: { $0 }, body: { () throws(ConfigError) in try configuration.path("a.v\(index)") })
            if Self.paths[index] == nil {
                // A path with no value: `git config` stops at its line; git's other readers (and
                // the library) name the variable and the same line.
                let file = environment["GIT_CONFIG_GLOBAL"]!
                #expect(expected == .failure(ConfigTextError(text: "bad config line \(index + 2) in file \(file)")))
                #expect(
                    actual
                        == .failure(
                            ConfigTextError(
                                text: "bad config variable 'a.v\(index)' in file '\(file)' at line \(index + 2)")))
                continue
            }
            #expect(actual == expected, "\(String(describing: Self.paths[index]))")
        }
    }

    @Test func stringsAndAllValuesAsGitGetsThem() throws {
        let values: [String?] = ["one", nil, "", " two ", "th\"ree"]
        let (directory, environment) = try Self.setUp(values, home: "/nonexistent")
        _ = directory
        let path = environment["GIT_CONFIG_GLOBAL"]!
        var text = "[a]\n"
        for value in values {
            text +=
                value.map { "\tmulti = \(String(decoding: ConfigWriter.quoted($0), as: UTF8.self))\n" } ?? "\tmulti\n"
        }
        try writeConfigFile(path, text + "[A \"Sub\"]\n\tKey = x\n")
        let configuration = try GitConfiguration.load(environment: environment)
        let all = try gitExactly(["config", "--get-all", "-z", "a.multi"], environment: environment)
        // git prints a value-less entry as an empty value.
        var printed = all.standardOutput.split(separator: 0, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        printed.removeLast()
        #expect(try configuration.all("a.multi").map { $0 ?? "" } == printed)
        #expect(try configuration.all("a.multi") == values)
        let last = try gitExactly(["config", "--get", "A.Sub.KEY"], environment: environment)
        #expect(try configuration.string("A.Sub.KEY").map { $0 + "\n" } == last.text)
        let wrongCase = try gitExactly(["config", "--get", "a.sub.key"], environment: environment)
        #expect(wrongCase.status == 1)
        #expect(try configuration.string("a.sub.key") == nil)
        for bad in ["nodot", "a.", ".a", "a.1b", "a.b_c", "a.sub\nx.k"] {
            let output = try gitExactly(["config", "--get", bad], environment: environment)
            #expect(output.errorText.hasPrefix("error: "))
            let reason = String(output.errorText.dropFirst("error: ".count).dropLast())
            #expect(throws: ConfigError.invalidKey(reason: reason)) {
                try configuration.string(bad)
            }
        }
    }
}
