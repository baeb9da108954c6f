import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `ConfigParser` reads what `git config --file <f> --list` reads, entry by entry, and refuses
/// what git refuses at the same line, on generated corpora of tricky files.
@Suite("config parser")
struct ConfigParserTests {
    /// Pieces of configuration files that exercise one rule each: headers of every form (and
    /// broken ones), keys with and without values, quoting, escapes (valid and not), comments,
    /// continuation lines, CRLF, whitespace, a byte order mark.
    static let fragments: [String] = [
        "[core]\n", "[Core]\n", "[CORE]\n", "[remote \"origin\"]\n", "[remote \"Origin\"]\n",
        "[remote \"or\\\"ig\\\\in\"]\n", "[remote \"a\\tb\"]\n", "[Section.Sub]\n", "[a.b.c]\n", "[a.]\n", "[.]\n",
        "[.a]\n", "[a-b]\n", "[1x]\n", "[a_b]\n", "[]\n", "[ \"sub\"]\n", "[sec  \"two spaces\"]\n",
        "[sec\t\"tab\"]\n", "[sec \"sub\" ]\n", "[sec \"unterminated]\n", "[sec \"a\"b]\n", "[sec \"a\"]extra = 1\n",
        "[sec \"new\nline\"]\n", "[sec \"back\\\nslash\"]\n", "[sec\n", "[sec", "[sec \"", "[sec \"x\"] k = v\n",
        "[url \"https://example.org/\"]\n", "[http \"https://*.example.org\"]\n", "[includeIf \"gitdir:~/work/\"]\n",
        "[Sec \"Mixed.Case\"]\n", "[sec \"ü\"]\n",
        "\tkey = value\n", "key=value\n", "Key = Value\n", "KEY\n", "flag\n", "empty =\n", "empty = \n",
        "spaced =   a   b   \n", "tabbed =\ta\t\tb\t\n", "quoted = \"  kept  \"\n", "mixed = a\"b \"c\n",
        "semi = \"a;b#c\"\n", "comment = a ; trailing\n", "hash = a # trailing\n", "inline=x#y\n",
        "escaped = \\\"x\\\"\n", "backslash = x\\\\y\n", "controls = a\\nb\\tc\\bd\n", "badescape = a\\qb\n",
        "badescape2 = \\x41\n", "unterminated = \"abc\n", "continued = one \\\ntwo\n", "qcontinued = \"one \\\ntwo\"\n",
        "trailing = x\\\n", "1key = x\n", "key-name = dash\n", "key_name = underscore\n", "key x\n", "key\t=\tx\n",
        "key = value\r\n", "crlf = \"a\r\nb\"\n", "lonecr = a\rb\n", "trailcr = a\r\n", "  indented = yes\n",
        "# comment line\n", "; other comment\n", "\n", "   \n", "\t\n", "k = ünïcödé\n", "k = \"with = equals\"\n",
        "k = a=b=c\n", "k=\n", "k==\n", "k = \"\"\n", "k = \"\\\"\"\n", "k = x \" y \" z\n", "k = \\ \n", "k = a\\\n",
        "k = \"a\" # c\n", "k = \"a\\\n\n", "k\\\n= x\n", "k = x\\\r\ny\n", "k = [not a section]\n", "[sec] k = v\n",
        "[sec]k=v\n", "[sec];c\nk=v\n", "[sec]#c\n", "[sec \"x\"]#c\n", "=value\n", "-k = x\n", "k- = x\n",
        "k.dot = x\n", "k = \"tab\there\"\n", "k = back\\bspace\n",
    ]

    /// Bytes the random files are made of: everything git's syntax gives a meaning to.
    static let alphabet: [[UInt8]] = [
        "[", "]", "\"", "\\", " ", "\t", "\n", "\n", "\r", "\r\n", "=", "=", "#", ";", "a", "b", "K", "k", ".", "-",
        "1", "x", "é", "n", "t",
    ].map { Array($0.utf8) }

    /// A generated file: structured from the fragments, or random from the alphabet.
    static func corpusFile(_ index: Int) -> [UInt8] {
        var generator = SeededGenerator(seed: UInt64(index) &* 0x9e37_79b9 &+ 17)
        var bytes: [UInt8] = []
        if index % 8 == 0 { bytes += [0xef, 0xbb, 0xbf] }
        if index % 29 == 0 { bytes += [0xef, 0xbb] }
        if index % 3 == 0 {
            let length = Int.random(in: 0...60, using: &generator)
            for _ in 0..<length { bytes += alphabet.randomElement(using: &generator)! }
            return bytes
        }
        if index % 5 != 0 { bytes += Array("[sec]\n".utf8) }
        let count = Int.random(in: 1...10, using: &generator)
        for _ in 0..<count {
            var fragment = Array(fragments.randomElement(using: &generator)!.utf8)
            if Int.random(in: 0..<6, using: &generator) == 0, fragment.last == 0x0a {
                fragment.removeLast()
            }
            bytes += fragment
        }
        return bytes
    }

    /// What git lists for a file and where it stops, next to what the parser gives.
    static func compare(_ bytes: [UInt8], path: String) throws -> (
        git: [ListedEntry], ours: [ListedEntry], gitLine: Int?, ourLine: Int?
    ) {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let output = try gitExactly(
            ["config", "--file", path, "--list", "-z"],
            environment: ["GIT_CONFIG_NOSYSTEM": "1", "HOME": "/nonexistent"])
        var gitLine: Int?
        if output.status != 0 {
            let message = fatalMessage(output) ?? output.errorText
            let prefix = "bad config line "
            let suffix = " in file \(path)"
            guard message.hasPrefix(prefix), message.hasSuffix(suffix) else {
                throw UnexpectedGitOutput(arguments: ["config", "--file", path], output: output)
            }
            gitLine = Int(message.dropFirst(prefix.count).dropLast(suffix.count))
        }
        let result = ConfigParser.parse(bytes)
        return (
            ListedEntry.parse(output.standardOutput), result.entries.map { ListedEntry($0) }, gitLine, result.errorLine
        )
    }

    @Test(arguments: 0..<12)
    func generatedFilesReadAsGitReadsThem(_ chunk: Int) throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-config-corpus")
        var refused = 0
        for index in (chunk * 150)..<((chunk + 1) * 150) {
            let bytes = Self.corpusFile(index)
            let (git, ours, gitLine, ourLine) = try Self.compare(bytes, path: directory.appending("config-\(index)"))
            #expect(ours == git, "file \(index): \(String(reflecting: String(decoding: bytes, as: UTF8.self)))")
            #expect(ourLine == gitLine, "file \(index): \(String(reflecting: String(decoding: bytes, as: UTF8.self)))")
            if gitLine != nil { refused += 1 }
        }
        // The corpus holds both kinds.
        #expect(refused > 10 && refused < 140)
    }

    /// Every fragment on its own, after a section header and with no final newline.
    @Test(arguments: fragments)
    func eachFragmentReadsAsGitReadsIt(_ fragment: String) throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-config-fragment")
        for (index, text) in [
            fragment, "[s]\n" + fragment, "[s]\n" + fragment + "[t]\nk = 1\n", String(fragment.dropLast()),
        ]
        .enumerated() {
            let bytes = Array(text.utf8)
            let (git, ours, gitLine, ourLine) = try Self.compare(bytes, path: directory.appending("config-\(index)"))
            #expect(ours == git, "\(String(reflecting: text))")
            #expect(ourLine == gitLine, "\(String(reflecting: text))")
        }
    }

    /// A NUL byte ends a name or value where git's C strings end it (and is no key character).
    @Test func nulBytesEndNamesAndValuesAsInGit() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-config-nul")
        for text in [
            "[a]\nk = x\0y\n", "[b \"s\0t\"]\nk = v\n", "[a]\nk\0 = v\n", "[a \"\0\"]\nk = v\n", "[a\0]\nk = v\n",
            "\0", "[a]\n\0k = v\n", "[a]\nk = \"\0\"\n", "[a \"x\0 y\"]\nk\n", "[a]\nk = \\\0\n",
        ] {
            let (git, ours, gitLine, ourLine) = try Self.compare(Array(text.utf8), path: directory.appending("config"))
            #expect(ours == git && ourLine == gitLine, "\(String(reflecting: text))")
        }
    }

    @Test func aByteOrderMarkIsSkippedAndHalfOfOneRefused() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-config-bom")
        for bytes: [UInt8] in [[0xef, 0xbb, 0xbf], [0xef, 0xbb], [0xef], [0xef, 0x0a], [0xbb, 0xbf]] {
            for rest in ["[a]\nb = c\n", "", "\n"] {
                let file = bytes + Array(rest.utf8)
                let (git, ours, gitLine, ourLine) = try Self.compare(file, path: directory.appending("config"))
                #expect(ours == git && ourLine == gitLine, "\(file)")
            }
        }
        #expect(ConfigParser.parse([0xef, 0xbb, 0xbf] + Array("[a]\nb = c\n".utf8)).entries.map(\.name) == ["a.b"])
    }

    @Test func namesAreCanonicalAndValuesInterpreted() throws {
        let text = """
            [Remote "Origin"]
            \tURL = "  https://example.org/x.git  " ; comment
            [Section.SubSection]
            \tKey
            \tother = a\\tb\\\\c \\"q\\"  # c
            \tcont = one \\
            two
            """
        let result = ConfigParser.parse(Array(text.utf8), scope: .local, origin: .file("/r/config"))
        #expect(result.errorLine == nil)
        #expect(
            result.entries == [
                ConfigEntry(
                    name: "remote.Origin.url", value: "  https://example.org/x.git  ", scope: .local,
                    origin: .file("/r/config"), line: 2),
                ConfigEntry(
                    name: "section.subsection.key", value: nil, scope: .local, origin: .file("/r/config"), line: 4),
                ConfigEntry(
                    name: "section.subsection.other", value: "a\tb\\c \"q\"", scope: .local, origin: .file("/r/config"),
                    line: 5),
                ConfigEntry(
                    name: "section.subsection.cont", value: "one two", scope: .local, origin: .file("/r/config"),
                    line: 7),
            ])
        #expect(result.entries[0].section == "remote" && result.entries[0].subsection == "Origin")
        #expect(result.entries[0].key == "url")
        #expect(result.entries[1].subsection == "subsection")
        #expect(throws: ConfigError.badLine(line: 2, origin: .file("/x"), reason: nil)) {
            try ConfigParser.entries(Array("[a]\nb = \\q\n".utf8), origin: .file("/x"))
        }
        #expect(
            ConfigError.badLine(line: 2, origin: .file("/x"), reason: nil).description == "bad config line 2 in file /x"
        )
    }

    /// The line git gives an entry (the one it ends on, after continuations and CRLFs) is the line
    /// of `bad config line N` when that entry is an include git cannot expand: git and the loader
    /// agree on it in generated files.
    @Test(arguments: 0..<4)
    func entryLinesAreGitsLines(_ chunk: Int) throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-config-lines")
        let home = directory.appending("home")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let fillers = [
            "a = 1\n", "b = \"x\\\ny\"\n", "c = one \\\n two \\\n three\n", "\n\n", "# c\n", "d = 1\r\n", "[s2]\r\n",
            "e\n", "f = \\\n\\\n\n", "g = x ; c \\\n",
        ]
        for index in (chunk * 40)..<((chunk + 1) * 40) {
            var generator = SeededGenerator(seed: UInt64(index) + 1000)
            var text = "[s]\n"
            for _ in 0..<Int.random(in: 0...8, using: &generator) { text += fillers.randomElement(using: &generator)! }
            text += "[include]\n\tpath = ~nosuchuser\(index)/x\n"
            for _ in 0..<Int.random(in: 0...3, using: &generator) { text += fillers.randomElement(using: &generator)! }
            let path = directory.appending("global-\(index)")
            try writeConfigFile(path, text)
            let environment = configEnvironment(home: home, extra: ["GIT_CONFIG_GLOBAL": path])
            let output = try gitExactly(["config", "--list"], environment: environment)
            var ours: ConfigError?
            do {
                _ = try GitConfiguration.load(environment: environment)
            } catch {
                ours = error
            }
            #expect(ours?.description == fatalMessage(output), "\(String(reflecting: text))")
            #expect(ours?.reason == firstDiagnostic(output), "\(String(reflecting: text))")
        }
    }
}
