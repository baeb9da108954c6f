import Foundation
import GitWire
import GitWireReplay
import GitWireTestSupport
import Testing

/// An ls-remote fixture: the recorded session, the command that made it, and what real
/// `git ls-remote` printed for the same command at capture time.
struct LsRemoteFixture: CustomTestStringConvertible, Sendable {
    let path: String
    let session: Session
    let options: LsRemoteOptions
    let filter: RefFilter
    let showSymrefs: Bool
    let exitCode: Bool
    let url: String
    let gitStatus: Int32
    let gitStandardError: [UInt8]
    let gitStandardOutput: [UInt8]

    var name: String { URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent }
    var testDescription: String { name }

    init(path: String) throws {
        self.path = path
        session = try Session(contentsOfFile: path)
        guard let command = session.command?.split(separator: " ").map(String.init), command.count >= 3,
            command[0] == "gitwire", command[1] == "ls-remote"
        else { throw FixtureProblem("\(path): no ls-remote command in the header") }
        var arguments = command.dropFirst(2)[...]
        var version = ProtocolVersion.v2
        var serverOptions: [String] = []
        var flags: Set<String> = []
        var positional: [String] = []
        while let argument = arguments.popFirst() {
            if argument.hasPrefix("--protocol-version=") {
                version = ProtocolVersion(rawValue: Int(argument.dropFirst(19)) ?? 2) ?? .v2
            } else if argument == "-o", let value = arguments.popFirst() {
                serverOptions.append(value)
            } else if argument.hasPrefix("-") {
                flags.insert(argument)
            } else {
                positional.append(argument)
            }
        }
        url = positional[0]
        filter = RefFilter(
            heads: flags.contains("--heads"), tags: flags.contains("--tags"), refsOnly: flags.contains("--refs"),
            patterns: Array(positional.dropFirst()))
        options = LsRemoteOptions(
            protocolVersion: version, refPrefixes: filter.refPrefixes, serverOptions: serverOptions)
        showSymrefs = flags.contains("--symref")
        exitCode = flags.contains("--exit-code")

        let expected = try GitExpectation(path: path.replacingOccurrences(of: ".session", with: ".expected"))
        gitStatus = expected.status
        gitStandardError = expected.standardError
        gitStandardOutput = expected.standardOutput
    }

    /// A remote that replays this fixture.
    func remote(chunking: ReplayChunking) throws -> (Remote, ReplayTransport) {
        let transport = ReplayTransport(session, chunking: chunking)
        return (
            Remote(url: try RemoteURL(url), transport: transport, timeout: .seconds(30).scaledForSlowRuns), transport
        )
    }

    /// What `gitwire ls-remote` prints and exits with for this outcome, as git would.
    func rendered(_ outcome: Result<[Ref], any Error>) -> (status: Int32, output: [UInt8], error: [UInt8]) {
        switch outcome {
        case .success(let refs):
            let output = LsRemoteOutput.format(refs, filter: filter, showSymrefs: showSymrefs)
            return (exitCode && output.isEmpty ? 2 : 0, output, [])
        case .failure(let error):
            return (128, [], Array("fatal: \(error)\n".utf8))
        }
    }

    static let all: [LsRemoteFixture] = sessionFixtures(in: "ls-remote").map { try! LsRemoteFixture(path: $0) }
}

struct FixtureProblem: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
