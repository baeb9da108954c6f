import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// Every numeric option of every subcommand, given a value out of range (gitwire issue #11):
/// a clear `fatal:` line and exit status 128, never a trap or a silently wrapped value; where git
/// has the same option, the same words as git.
@Suite("numeric options out of range")
struct HostileOptionsTests {
    /// Runs gitwire and checks it failed cleanly with `message`.
    func expectFatal(_ arguments: [String], _ message: String, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        let result = try run(["timeout", "60", gitwireExecutable] + arguments, check: false)
        #expect(result.status == 128, "\(arguments): \(result.errorText)", sourceLocation: sourceLocation)
        #expect(result.errorText == "fatal: \(message)\n", "\(arguments)", sourceLocation: sourceLocation)
    }

    @Test(arguments: ["1e16", "1e300", "nan", "inf", "-1", "0", "abc"])
    func timeouts(value: String) throws {
        let message = "--timeout takes a positive number of seconds up to 1000000000, not '\(value)'"
        let directory = try TemporaryDirectory()
        try expectFatal(["ls-remote", "--timeout=\(value)", "git://127.0.0.1:1/x.git"], message)
        try expectFatal(
            ["clone", "--bare", "--timeout=\(value)", "git://127.0.0.1:1/x.git", directory.appending("c")], message)
        try expectFatal(["fetch", "--timeout=\(value)", "git://127.0.0.1:1/x.git", directory.path], message)
        #expect(try fileNames(in: directory).isEmpty)
    }

    /// `--depth` is refused before anything else, with git's words, for clone and fetch.
    @Test(arguments: ["abc", "0", "-3", "99999999999999999999"])
    func depths(value: String) throws {
        let directory = try TemporaryDirectory()
        let repository = directory.appending("local.git")
        try git(["init", "-q", "--bare", repository])
        let url = "git://127.0.0.1:1/x.git"
        let gitClone = try git(["clone", "--bare", "--depth=\(value)", url, directory.appending("g")], check: false)
        let ourClone = try gitwire(["clone", "--bare", "--depth=\(value)", url, directory.appending("c")])
        #expect(gitClone.status == 128)
        #expect(ourClone.status == 128)
        #expect(ourClone.errorText == gitClone.errorText)
        #expect(ourClone.errorText == "fatal: depth \(value) is not a positive number\n")
        let gitFetch = try git(["fetch", "--depth=\(value)", url], in: repository, check: false)
        let ourFetch = try gitwire(["fetch", "--depth=\(value)", url, repository])
        #expect(gitFetch.status == 128)
        #expect(ourFetch.status == 128)
        #expect(ourFetch.errorText == gitFetch.errorText)
        #expect(try fileNames(in: directory) == ["local.git"])
    }

    @Test func threads() throws {
        let directory = try TemporaryDirectory()
        var builder = TestPackBuilder()
        try builder.addObject(.blob, Array("x".utf8))
        try writeFile(directory.appending("p.pack"), builder.bytes())
        // git prints its usage for -1 and tries to start 10^8 threads (running out of file
        // descriptors); gitwire says what is wrong with the number.
        for value in ["-1", "100000000", "257"] {
            try expectFatal(
                ["index-pack", "--threads=\(value)", directory.appending("p.pack")],
                "invalid number of threads specified (\(value))")
        }
        #expect(try fileNames(in: directory) == ["p.pack"])
        // 256 is the most it takes.
        #expect(try gitwire(["index-pack", "--threads=256", "p.pack"], in: directory.path).status == 0)
    }

    @Test func recordProxy() throws {
        let directory = try TemporaryDirectory()
        let common = ["record-proxy", "--upstream=git://127.0.0.1:1", "--out=\(directory.path)"]
        for port in ["99999", "65536", "-1", "abc", "", "+80", "٣"] {
            try expectFatal(
                common + ["--listen=127.0.0.1:\(port)"], "invalid port number '\(port)' in --listen 127.0.0.1:\(port)")
        }
        for value in ["nan", "1e300", "inf", "-5", "0", "x"] {
            try expectFatal(
                common + ["--listen=127.0.0.1:0", "--idle-timeout=\(value)"],
                "--idle-timeout takes a positive number of seconds up to 1000000000, not '\(value)'")
        }
        try expectFatal(
            common + ["--listen=127.0.0.1:0", "--connections=0"], "--connections takes a positive number, not 0")
        try expectFatal(
            ["record-proxy", "--upstream=git://127.0.0.1:99999", "--out=\(directory.path)", "--listen=127.0.0.1:0"],
            "invalid port number '99999': git://127.0.0.1:99999/")
        #expect(try fileNames(in: directory).isEmpty)
    }

    /// Ports in URLs: out of range is refused by name, for every scheme with a port.
    @Test(arguments: [
        "git://127.0.0.1:99999/x", "git://[::1]:65536/x", "ssh://127.0.0.1:99999/x", "git://127.0.0.1:0/x",
    ])
    func urlPorts(url: String) throws {
        let port = url.split(separator: ":").last!.split(separator: "/").first!
        try expectFatal(["ls-remote", "--timeout=5", url], "invalid port number '\(port)': \(url)")
    }
}
