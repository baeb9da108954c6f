import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `GIT_TRACE_PACKET` output of `gitwire ls-remote` is line for line git's, timestamps aside.
@Suite("packet trace")
struct PacketTraceTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var scheme: String
        var version: Int
        var testDescription: String { "\(scheme) v\(version)" }
    }

    static let cases = ["file", "git"].flatMap { scheme in [0, 1, 2].map { Case(scheme: scheme, version: $0) } }

    /// The client's trace lines (identity `ls-remote`), each without its timestamp (the first 15
    /// characters) and with the agent this side sends replaced, since git's and gitwire's differ.
    static func clientLines(_ trace: [UInt8]) -> [String] {
        String(decoding: trace, as: UTF8.self).split(separator: "\n").compactMap { line in
            let body = line.dropFirst(15)
            guard body.contains("packet:    ls-remote") else { return nil }
            if let range = body.range(of: "ls-remote> agent=") {
                return String(body[..<range.upperBound]) + "<agent>"
            }
            return String(body)
        }
    }

    @Test(arguments: cases)
    func traceFileMatchesGit(_ testCase: Case) throws {
        let repositories = TestRepositories.shared
        let url =
            testCase.scheme == "git" ? repositories.daemon.url("big.git") : "file://\(repositories.path("big.git"))"
        let directory = try TemporaryDirectory()
        let gitTrace = directory.appending("git.trace")
        let ourTrace = directory.appending("gitwire.trace")
        let expected = try git(
            ["-c", "protocol.version=\(testCase.version)", "ls-remote", url],
            environment: ["GIT_TRACE_PACKET": gitTrace])
        let actual = try gitwire(
            ["ls-remote", "--protocol-version=\(testCase.version)", url], environment: ["GIT_TRACE_PACKET": ourTrace])
        #expect(actual.status == 0)
        #expect(actual.standardOutput == expected.standardOutput)
        let expectedLines = Self.clientLines(Array(try Data(contentsOf: URL(fileURLWithPath: gitTrace))))
        let actualLines = Self.clientLines(Array(try Data(contentsOf: URL(fileURLWithPath: ourTrace))))
        #expect(expectedLines.count > 2000)
        #expect(actualLines.count == expectedLines.count)
        let same = actualLines == expectedLines
        #expect(same)
        if !same, let first = zip(actualLines, expectedLines).first(where: { $0 != $1 }) {
            Issue.record("first difference:\n  gitwire: \(first.0)\n  git:     \(first.1)")
        }
    }

    /// Every trace line starts with a timestamp in git's format.
    @Test func timestampsHaveGitsShape() throws {
        let directory = try TemporaryDirectory()
        let trace = directory.appending("trace")
        _ = try gitwire(
            ["ls-remote", TestRepositories.shared.daemon.url("small.git")], environment: ["GIT_TRACE_PACKET": trace])
        let lines = String(decoding: try Data(contentsOf: URL(fileURLWithPath: trace)), as: UTF8.self)
            .split(separator: "\n")
        #expect(!lines.isEmpty)
        for line in lines {
            let stamp = Array(line.utf8.prefix(16))
            let digits = [0, 1, 3, 4, 6, 7] + Array(9..<15)
            #expect(digits.allSatisfy { (0x30...0x39).contains(stamp[$0]) }, "\(line)")
            #expect(stamp[2] == UInt8(ascii: ":") && stamp[5] == UInt8(ascii: ":") && stamp[8] == UInt8(ascii: "."))
            #expect(stamp[15] == UInt8(ascii: " "))
        }
    }

    /// `GIT_TRACE_PACKET=1` sends the trace to standard error, as git does.
    @Test(arguments: ["1", "true", "2"])
    func traceToStandardError(setting: String) throws {
        let url = TestRepositories.shared.daemon.url("small.git")
        let expected = try git(["ls-remote", url], environment: ["GIT_TRACE_PACKET": setting])
        let actual = try gitwire(["ls-remote", url], environment: ["GIT_TRACE_PACKET": setting])
        #expect(actual.standardOutput == expected.standardOutput)
        let expectedLines = Self.clientLines(expected.standardError)
        #expect(!expectedLines.isEmpty)
        #expect(Self.clientLines(actual.standardError) == expectedLines)
    }

    @Test(arguments: ["", "0", "false", "no", "off", "relative/path"])
    func settingsThatTurnTracingOff(setting: String) {
        #expect(PacketTrace(identity: "ls-remote", setting: setting) == nil)
        #expect(PacketTrace(identity: "ls-remote", setting: nil) == nil)
    }

    /// Pack data is traced as one `PACK ...` line; band-1 packets after it are left out while
    /// other bands still show, as git's `packet_trace` does. Fed a real side-band fetch response.
    @Test func packDataIsTracedAsOneLine() throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("trace")
        let trace = try #require(PacketTrace(identity: "fetch", setting: path))
        let packets = ServerCaptures.referencePackets(try ServerCaptures.fetchResponse("small.git"))
        for packet in packets { trace.record(packet, sent: false) }
        let lines = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
            .split(separator: "\n").map { String($0.dropFirst(15)) }
        let prefix = " pkt-line.c:80           packet:        fetch< "
        #expect(lines.allSatisfy { $0.hasPrefix(prefix) })
        let bodies = lines.map { $0.dropFirst(prefix.count) }
        #expect(bodies.first == "packfile")
        #expect(bodies.last == "0000")
        #expect(bodies.filter { $0 == "PACK ..." }.count == 1)
        let bandOne = packets.filter { $0.payload?.first == 1 }.count
        let bandTwo = packets.filter { $0.payload?.first == 2 }.count
        #expect(bandOne > 0 && bandTwo > 0)
        #expect(lines.count == bandTwo + 3, "packfile, the progress lines, PACK ..., 0000")
        #expect(bodies.filter { $0.hasPrefix("\\2") }.count == bandTwo)
    }
}
