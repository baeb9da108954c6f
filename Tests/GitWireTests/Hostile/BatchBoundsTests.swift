import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// What bounds one remote and one input line of `ls-remote --batch` (issue #19, D15 and D16):
/// a deadline for each remote's whole exchange, so a silent or trickling server neither holds
/// the output of the remotes after it nor keeps the batch from ending; and input lines read in
/// linear time, a line too long to be a URL an error for that line alone.
@Suite("ls-remote --batch bounds")
struct BatchBoundsTests {
    static let repositories = BatchRepositories.shared

    /// Runs `gitwire ls-remote` with `arguments` and `input` on standard input, killed if it has
    /// not ended after two minutes: a run that never ends fails the test instead of stalling it.
    static func lsRemote(_ arguments: [String], input: String) throws -> ProcessOutput {
        try run(
            ["timeout", "--signal=KILL", String(scaledForSlowRuns(seconds: 120)), gitwireExecutable, "ls-remote"]
                + arguments, input: Array(input.utf8), check: false)
    }

    /// A server that takes connections (the kernel completes them) and never answers, and one that
    /// trickles a never-ending advertisement, a packet every half second, ahead of remotes that
    /// answer: with no `--timeout`, or one no single wait exceeds, the deadline ends both, and
    /// every other remote is listed as git lists it, in input order.
    @Test(arguments: [nil, 5] as [Int?])
    func theDeadlineEndsSilentAndTricklingServers(timeoutSeconds: Int?) throws {
        // Scaled as the deadline is, so that it stays longer than the deadline in slow runs.
        let extra = timeoutSeconds.map { ["--timeout=\(Duration.seconds($0).scaledForSlowRuns.secondsText)"] } ?? []
        let silent = try ListeningSocket(host: "127.0.0.1")
        let silentURL = "git://127.0.0.1:\(silent.address.port)/silent.git"
        let trickling = Self.repositories.http.url("/hostile/trickle/0.5/r1.git")
        let answering = [Self.repositories.url(2), Self.repositories.url(3), Self.repositories.url(4)]
        let urls = [silentURL, trickling] + answering
        let deadline = Duration.seconds(3).scaledForSlowRuns.secondsText
        let result = try Self.lsRemote(
            extra + ["--deadline=\(deadline)", "--batch", "-"], input: urls.joined(separator: "\n") + "\n")
        #expect(result.status == 1, "\(result.errorText)")
        let timedOut = "error: timed out after \(deadline) s (deadline) reading the ref advertisement\n"
        let expected =
            [BatchBlock(url: silentURL, body: timedOut), BatchBlock(url: trickling, body: timedOut)]
            + (try BatchLsRemoteTests.expectedBlocks(answering))
        #expect(BatchBlock.parse(result.text) == expected, "\(result.text)")
        _ = silent
    }

    /// The same in JSON, in completion order: the answering remotes come first, the two held by
    /// their deadline last, as `timedOut` errors.
    @Test func deadlineErrorsInJSON() throws {
        let silent = try ListeningSocket(host: "127.0.0.1")
        let silentURL = "git://127.0.0.1:\(silent.address.port)/silent.git"
        let trickling = Self.repositories.http.url("/hostile/trickle/0.5/r5.git")
        let urls = [silentURL, trickling, Self.repositories.url(6)]
        let deadline = Duration.seconds(2).scaledForSlowRuns.secondsText
        let result = try Self.lsRemote(
            ["--json", "--completion-order", "--deadline=\(deadline)", "--batch", "-"],
            input: urls.joined(separator: "\n"))
        #expect(result.status == 1, "\(result.errorText)")
        let objects = try result.text.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(objects.map { $0["url"] as? String }.first == urls[2])
        #expect(Set(objects.dropFirst().compactMap { $0["url"] as? String }) == [silentURL, trickling])
        for object in objects.dropFirst() {
            let error = object["error"] as? [String: Any]
            #expect(error?["kind"] as? String == "timedOut")
            #expect(
                error?["message"] as? String == "timed out after \(deadline) s (deadline) reading the ref advertisement"
            )
        }
        _ = silent
    }

    /// The library: a batch in input order hands out the remotes after a silent one once the
    /// deadline has ended it, and by default every remote has one.
    @Test func theRunLoopFormBoundsEachRemoteByTheDeadline() throws {
        #expect(LsRemoteBatchOptions().deadline == .seconds(60))
        #expect(LsRemoteBatchOptions.defaultDeadline == .seconds(60))
        let silent = try ListeningSocket(host: "127.0.0.1")
        let urls = ["git://127.0.0.1:\(silent.address.port)/silent.git"] + (0..<5).map { Self.repositories.url($0) }
        let loop = try EpollRunLoop()
        var listings: [BatchListing] = []
        let deadline = Duration.seconds(2).scaledForSlowRuns
        let batch = LsRemoteBatch(LsRemoteBatchOptions(deadline: deadline), in: loop) {
            listings.append($0)
        } completion: {
            loop.stop()
        }
        batch.start(urls)
        loop.run()
        #expect(listings.map(\.index) == Array(0..<6))
        #expect(throws: ExchangeDeadlineError(after: deadline, activity: "reading the ref advertisement")) {
            try listings[0].result.mapError(\.base).get()
        }
        for listing in listings.dropFirst() { #expect(throws: Never.self) { try listing.result.get() } }
        _ = silent
    }

    @Test func deadlineOptionsAreChecked() throws {
        for (arguments, message) in [
            (["--deadline=-1", "--batch", "-"], "fatal: --deadline takes a positive number of seconds up to "),
            (["--deadline=x", "--batch", "-"], "fatal: --deadline takes a positive number of seconds up to "),
            (["--deadline=5", "git://127.0.0.1/x.git"], "fatal: --deadline needs --batch\n"),
        ] {
            let result = try Self.lsRemote(arguments, input: "")
            #expect(result.status == 128, "\(arguments)")
            #expect(result.errorText.hasPrefix(message), "\(result.errorText)")
        }
        // 0: no deadline.
        let none = try Self.lsRemote(["--deadline=0", "--batch", "-"], input: Self.repositories.url(7) + "\n")
        #expect(none.status == 0, "\(none.errorText)")
        #expect(BatchBlock.parse(none.text) == (try BatchLsRemoteTests.expectedBlocks([Self.repositories.url(7)])))
    }

    /// A 48 MiB line among URLs (the old reader rescanned all it held on every 64 KiB read:
    /// quadratic, 245 s and 3.4 GB for 300 MB) is read once and held no further than the line
    /// limit: that line alone fails, the others are listed, and a long comment is a comment. The
    /// longest line taken as a URL is 65,536 bytes.
    @Test func longLinesAreReadOnceAndFailAlone() throws {
        let limit = 65536
        let atLimit = "foo://" + String(repeating: "a", count: limit - 6)
        let overLimit = "foo://" + String(repeating: "b", count: limit - 5)
        let huge = String(repeating: "h", count: 48 << 20)
        let lines = [
            Self.repositories.url(8), "  " + huge + " ", "# " + String(repeating: "c", count: 1 << 20),
            Self.repositories.url(9), atLimit, overLimit, Self.repositories.url(10),
        ]
        let run = try measuringPeakMemory(
            [gitwireExecutable, "ls-remote", "--batch", "-"], input: Array(lines.joined(separator: "\n").utf8),
            killAfter: 120)
        #expect(run.output.status == 1, "\(run.output.errorText)")
        let blocks = try #require(BatchBlock.parse(run.output.text))
        let good = try BatchLsRemoteTests.expectedBlocks([8, 9, 10].map { Self.repositories.url($0) })
        let tooLong = { (start: String, line: Int, length: Int) in
            BatchBlock(
                url: String(start.prefix(64)) + "...",
                body:
                    "error: line \(line) of the input is \(length) bytes long; a URL may be at most \(limit) bytes long\n"
            )
        }
        let expected = [
            good[0], tooLong(huge, 2, huge.utf8.count + 3), good[1],
            BatchBlock(url: atLimit, body: "error: unsupported URL scheme 'foo': \(atLimit)\n"),
            tooLong(overLimit, 6, limit + 1), good[2],
        ]
        #expect(blocks == expected)
        #expect(run.peakMemory < peakMemoryBound(100 << 20), "peak \(mebibytes(run.peakMemory))")
    }

    /// A URL in the list is shown on one line with every control character replaced by a space:
    /// C0 ones (ESC, CR) and the C1 ones, U+0080 to U+009F, which some terminals take as escape
    /// sequences (U+009B is CSI). The URL's error line says the same.
    @Test func controlCharactersInURLsAreNotPrinted() throws {
        let hostile = "foo://a\u{9b}31mred\u{1b}[2Jb\u{85}c\rd"
        let shown = "foo://a 31mred [2Jb c d"
        let result = try Self.lsRemote(["--batch", "-"], input: hostile + "\n")
        #expect(result.status == 1, "\(result.errorText)")
        #expect(
            result.text == "# \(shown)\nerror: unsupported URL scheme 'foo': \(shown)\n\n",
            "\(Array(result.text.unicodeScalars.map(\.value)))")
        // In JSON they are escaped, C1 too (valid JSON either way, but a terminal shown it sees
        // no control character), and the URL parses back to what the list held.
        let json = try Self.lsRemote(["--json", "--batch", "-"], input: hostile + "\n")
        #expect(json.status == 1, "\(json.errorText)")
        #expect(json.text.hasPrefix(#"{"url":"foo://a\u009b31mred\u001b[2Jb\u0085c\rd","error":{"#), "\(json.text)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.text.utf8)) as? [String: Any])
        #expect(object["url"] as? String == hostile)
    }
}
