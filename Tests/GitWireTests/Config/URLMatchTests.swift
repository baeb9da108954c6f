import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `http.<url>.<key>` lookups choose what `git config --get-urlmatch` chooses, on generated
/// configurations: schemes, `*.` host labels, ports (default ones too), paths on `/` boundaries,
/// user names, `%XX` escapes and dot segments, invalid URLs on either side.
@Suite("url matching")
struct URLMatchTests {
    static let configuredURLs = [
        "https://example.org", "https://example.org/", "https://example.org/repo", "https://example.org/repo/",
        "https://*.org", "https://*.example.org", "https://*.*.example.org", "https://user@example.org",
        "https://other@example.org", "https://example.org:443", "https://example.org:8443", "http://example.org:80/",
        "https://EXAMPLE.org/Repo", "https://example.org/a/../repo", "https://example.org/%72epo",
        "https://example.org/repo.git",
        "example.org", "https://ex ample.org", "https://example.org:0", "https://[::1]:8080/", "file:///srv/",
        "https://example.org/a%2Fb", "https://user@*.example.org/repo", "HTTPS://example.org:00443/",
        "https://example.org/./repo",
        "https://example.org/repo/..", "https://example.org/%zz", "https://*", "https://example.*", "https://",
        "https://@example.org", "https://user:pw@example.org",
    ]
    static let keys = ["sslVerify", "extraHeader", "proxy", "postBuffer"]
    static let urls = [
        "https://example.org/repo.git", "https://user@example.org/repo", "https://user:secret@example.org/repo/sub",
        "https://sub.example.org/x", "https://a.b.example.org/x", "https://example.org:8443/repo",
        "http://example.org/repo",
        "https://EXAMPLE.ORG/repo", "https://example.org/repository", "https://example.org", "https://[::1]:8080/x",
        "file:///srv/repo", "https://example.org/%72epo", "https://example.org/a/b", "https://example.org/a%2Fb/c",
        "https://example.org:443/repo", "https://other@example.org/", "https://example.org/repo?x=1#f", "https://org/",
        "notaurl", "https://example.org:99999/", "https://example.org/%", "https://@example.org/repo",
    ]

    /// A configuration of `http.<url>.<key>` entries made from `seed`.
    static func configuration(_ seed: Int) -> String {
        var generator = SeededGenerator(seed: UInt64(seed) &* 104_729 &+ 11)
        var text = ""
        for index in 0..<Int.random(in: 2...12, using: &generator) {
            let key = keys.randomElement(using: &generator)!
            if Int.random(in: 0..<5, using: &generator) == 0 {
                text += "[http]\n\t\(key) = plain-\(index)\n"
            } else {
                let url = configuredURLs.randomElement(using: &generator)!
                let value = Int.random(in: 0..<9, using: &generator) == 0 ? "" : " = value-\(index)"
                text += "[http \"\(url)\"]\n\t\(key)\(value)\n"
            }
        }
        return text
    }

    @Test(arguments: 0..<6)
    func matchesAsGit(_ chunk: Int) throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-urlmatch")
        let global = directory.appending("global")
        for seed in (chunk * 8)..<((chunk + 1) * 8) {
            let text = Self.configuration(seed)
            try writeConfigFile(global, text)
            let environment = configEnvironment(home: directory.path, extra: ["GIT_CONFIG_GLOBAL": global])
            let configuration = try GitConfiguration.load(environment: environment)
            for url in Self.urls {
                let all = try gitExactly(["config", "-z", "--get-urlmatch", "HTTP", url], environment: environment)
                switch Result(catching: { () throws(ConfigError) in
                    try configuration.urlMatches(section: "HTTP", for: url)
                }) {
                case .success(let matches):
                    let expected = ListedEntry.parse(all.standardOutput)
                    #expect(
                        matches.map { ListedEntry(name: "http.\($0.key)", value: $0.value) } == expected,
                        "seed \(seed) \(url):\n\(text)")
                case .failure(let error):
                    #expect(error.description == fatalMessage(all), "seed \(seed) \(url)")
                }
                for key in Self.keys {
                    let one = try gitExactly(
                        ["config", "--get-urlmatch", "http.\(key)", url], environment: environment)
                    switch Result(catching: { () throws(ConfigError) in
                        try configuration.urlMatch("http.\(key)", for: url)
                    }) {
                    case .success(.some(let value)):
                        #expect(
                            one.status == 0 && one.text == (value ?? "") + "\n", "seed \(seed) \(key) \(url):\n\(text)")
                    case .success(.none):
                        #expect(one.status == 1, "seed \(seed) \(key) \(url): git found \(one.text)\n\(text)")
                    case .failure(let error):
                        #expect(error.description == fatalMessage(one), "seed \(seed) \(key) \(url)")
                    }
                }
            }
        }
    }

    @Test func normalizesAsGit() throws {
        for (url, normalized) in [
            ("HTTPS://Example.ORG:0443/a/./b/../c%7e%2f?Q=%41#F", "https://example.org/a/c~%2F?Q=A#F"),
            ("http://example.org:80", "http://example.org/"), ("https://u%41:p@h/", "https://uA:p@h/"),
            ("file:///x/../y", "file:///y"), ("https://h/a b", "https://h/a%20b"),
        ] {
            #expect(try URLMatch.normalize(url).text == normalized)
        }
        #expect(throws: ConfigError.invalidURL(reason: "invalid '..' path segment")) {
            try URLMatch.normalize("https://h/..")
        }
        #expect(throws: ConfigError.invalidURL(reason: "a 'file:' URL may not have a port number")) {
            try URLMatch.normalize("file://:1/x")
        }
    }
}

extension Result where Failure == ConfigError {
    init(catching body: () throws(ConfigError) -> Success) {
        do {
            self = .success(try body())
        } catch {
            self = .failure(error)
        }
    }
}
