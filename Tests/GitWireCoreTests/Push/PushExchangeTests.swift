import Foundation
import GitWireCore
import GitWireCoreTestSupport
import Testing

/// A captured push (Tools/capture-push-fixtures.sh): what git sent and what receive-pack answered.
struct PushFixture {
    let name: String
    let client: [UInt8]
    let server: [UInt8]

    init(_ name: String) throws {
        self.name = name
        client = Array(try Data(contentsOf: URL(fileURLWithPath: "\(fixturesDirectory)/push/\(name).client")))
        server = Array(try Data(contentsOf: URL(fileURLWithPath: "\(fixturesDirectory)/push/\(name).server")))
    }

    /// git's commands, push options and their flushes: everything before the pack.
    var commandBytes: [UInt8] {
        var decoder = PktLineDecoder()
        decoder.append(client)
        var flushes = 0
        var consumed = 0
        var expectedFlushes = 1
        while let packet = try? decoder.next() {
            consumed += packet.encoded.count
            if packet == .flush {
                flushes += 1
                if flushes == expectedFlushes { break }
            } else if case .data(let payload) = packet, flushes == 0, payload.contains(0),
                String(decoding: payload, as: UTF8.self).contains(" push-options")
            {
                expectedFlushes = 2
            }
        }
        return Array(client.prefix(consumed))
    }

    /// git's commands, parsed back: what the plan must return for the same request.
    var commands: [PushCommand] {
        var decoder = PktLineDecoder()
        decoder.append(client)
        var result: [PushCommand] = []
        while let packet = try? decoder.next(), case .data(let payload) = packet {
            let line = payload.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)[0]
            let words = line.split(separator: 0x20)
            let format: ObjectFormat = words[0].count == ObjectFormat.sha256.hexCount ? .sha256 : .sha1
            result.append(
                PushCommand(
                    name: String(decoding: words[2], as: UTF8.self), old: ObjectID(hex: words[0], format: format)!,
                    new: ObjectID(hex: words[1], format: format)!))
        }
        return result
    }
}

/// Runs `exchange` over `server`'s bytes cut into pieces of `chunk` bytes; returns what it sent,
/// what it emitted and its outcome.
func drive(
    _ exchange: PushExchange, server: [UInt8], chunk: Int
) throws -> (sent: [UInt8], events: [PushEvent], outcome: PushOutcome?) {
    var codec = ExchangeCodec(exchange)
    var sent = try codec.opening(greeting: [], context: ExchangeContext())
    var events: [PushEvent] = []
    var offset = 0
    while offset < server.count, codec.output == nil {
        let piece = Array(server[offset..<min(offset + chunk, server.count)])
        offset += piece.count
        sent += try codec.receive(piece) { events.append($0) }
    }
    return (sent, events, codec.output)
}

@Suite struct PushExchangeTests {
    static let agent = "git/2.39.5"

    static func options(_ name: String) -> PushOptions {
        switch name {
        case "update-options": PushOptions(pushOptions: ["ci.skip", "note=two words"], agent: agent)
        case "v1-atomic-quiet": PushOptions(protocolVersion: .v1, atomic: true, quiet: true, agent: agent)
        case "sha256-new-branch-empty", "sha256-update": PushOptions(agent: agent, objectFormat: .sha256)
        default: PushOptions(agent: agent)
        }
    }

    @Test(
        "commands byte for byte as git sends them; report parsed at every chunking",
        arguments: [
            "new-branch-empty", "update-options", "update-hook-rejects", "pre-receive-declines", "v1-atomic-quiet",
            "sha256-new-branch-empty", "sha256-update",
        ])
    func matchesGit(_ name: String) throws {
        let fixture = try PushFixture(name)
        let commands = fixture.commands
        for chunk in [1, 2, 3, 7, 64, fixture.server.count] {
            let exchange = PushExchange(options: Self.options(name)) { _ in commands }
            let (sent, events, result) = try drive(exchange, server: fixture.server, chunk: chunk)
            #expect(sent == fixture.commandBytes, "\(name), chunk \(chunk)")
            let outcome = try #require(result)
            #expect(outcome.request?.commands == commands)
            #expect(outcome.request?.sendsPack == commands.contains { !$0.isDeletion })
            let report = try #require(outcome.report)
            #expect(report.unpackError == nil)
            #expect(report.problems.isEmpty)
            #expect(Set(report.refs.map(\.name)) == Set(commands.map(\.name)))
            let sending = events.filter { if case .sending = $0 { true } else { false } }
            #expect(sending.count == 1)
            let messages = events.flatMap { event -> [UInt8] in
                if case .remoteMessage(let bytes) = event { bytes } else { [] }
            }
            switch name {
            case "new-branch-empty":
                #expect(outcome.listing.refs.isEmpty)
                #expect(outcome.listing.capabilities.contains("report-status-v2"))
                #expect(
                    String(decoding: messages, as: UTF8.self)
                        == "pre-receive: checking\npost-receive: \u{1b}[31mdone\u{1b}[0m\n")
            case "update-hook-rejects":
                #expect(report.ref("refs/heads/main")?.isOK == true)
                #expect(report.ref("refs/heads/blocked")?.rejection == "hook declined")
            case "pre-receive-declines":
                #expect(report.ref("refs/heads/feature")?.rejection == "pre-receive hook declined")
                #expect(String(decoding: messages, as: UTF8.self) == "pre-receive: declined\n")
            case "v1-atomic-quiet":
                #expect(outcome.listing.protocolVersion == ProtocolVersion.v1)
            case "sha256-new-branch-empty", "sha256-update":
                #expect(outcome.listing.objectFormat == .sha256)
                #expect(outcome.listing.refs.isEmpty == (name == "sha256-new-branch-empty"))
                #expect(commands.allSatisfy { $0.old.format == .sha256 && $0.new.format == .sha256 })
                #expect(report.refs.allSatisfy { $0.isOK })
            default:
                #expect(report.refs.allSatisfy { $0.isOK })
            }
        }
    }

    @Test(
        "a push to a server of the other format fails before anything is sent, with git's message",
        arguments: [
            ("new-branch-empty", ObjectFormat.sha256, "protocol error: unexpected capabilities^{}"),
            ("update-options", .sha256, "the receiving end does not support this repository's hash algorithm"),
            ("sha256-new-branch-empty", .sha1, "the receiving end does not support this repository's hash algorithm"),
            ("sha256-update", .sha1, "the receiving end does not support this repository's hash algorithm"),
        ])
    func otherFormat(_ name: String, _ format: ObjectFormat, _ message: String) throws {
        let fixture = try PushFixture(name)
        let commands = fixture.commands
        let exchange = PushExchange(options: PushOptions(agent: Self.agent, objectFormat: format)) { _ in
            Issue.record("planned a push to a server of the other format")
            return commands
        }
        var codec = ExchangeCodec(exchange)
        var sent = try codec.opening(greeting: [], context: ExchangeContext())
        var failure: (any Error)?
        do { sent += try codec.receive(fixture.server) { _ in } } catch { failure = error }
        #expect(sent.isEmpty)
        #expect("\(try #require(failure))" == message)
    }

    @Test("a push with nothing to update sends one flush and reads no report")
    func nothingToUpdate() throws {
        let fixture = try PushFixture("update-options")
        let advertisement = fixture.server
        // The advertisement ends at the first flush.
        var decoder = PktLineDecoder()
        decoder.append(advertisement)
        var length = 0
        while let packet = try decoder.next() {
            length += packet.encoded.count
            if packet == .flush { break }
        }
        let exchange = PushExchange(options: PushOptions(agent: Self.agent)) { _ in [] }
        let (sent, events, outcome) = try drive(exchange, server: Array(advertisement.prefix(length)), chunk: 5)
        #expect(sent == PktLine.flush.encoded)
        #expect(try #require(outcome).request == nil)
        #expect(!events.contains { if case .sending = $0 { true } else { false } })
    }

    /// The advertisement of a capture, then `report` (pkt-lines) in band 1 and the closing flush.
    static func server(_ fixture: PushFixture, report: [PktLine], sideBand: Bool = true) throws -> [UInt8] {
        var decoder = PktLineDecoder()
        decoder.append(fixture.server)
        var advertisement: [UInt8] = []
        while var packet = try decoder.next() {
            if !sideBand, case .data(let payload) = packet, let nul = payload.firstIndex(of: 0) {
                // The same server, offering no side-band.
                let words = payload[(nul + 1)...].split(separator: 0x20).filter {
                    !$0.elementsEqual("side-band-64k".utf8)
                }
                packet = .data(Array(payload[...nul]) + Array(words.joined(separator: [0x20])))
            }
            advertisement += packet.encoded
            if packet == .flush { break }
        }
        let inner = try PktLineEncoder.encode(report)
        guard sideBand else { return advertisement + inner }
        return advertisement + PktLine.data([1] + inner).encoded + PktLine.flush.encoded
    }

    @Test("unpack errors, ng reasons with escape sequences, option lines, unknown refs")
    func hostileReports() throws {
        let fixture = try PushFixture("update-hook-rejects")
        let commands = fixture.commands
        let server = try Self.server(
            fixture,
            report: [
                .text("unpack index-pack abnormal exit\u{1b}[2J"),
                .text("ng refs/heads/main bad \u{1b}]0;x\u{07} reason"),
                .text("ok refs/heads/blocked"), .text("option refname refs/for/blocked"),
                .text("option new-oid 37206e4e163fc1e1fe68ca32384ec58c3891b8a8"), .text("option forced-update"),
                .text("ok refs/heads/nobody"), .flush,
            ])
        let (_, _, outcome) = try drive(
            PushExchange(options: PushOptions(agent: Self.agent)) { _ in commands }, server: server, chunk: 3)
        let finished = try #require(outcome)
        let report = try #require(finished.report)
        #expect(report.unpackError == "index-pack abnormal exit?[2J")
        #expect(report.ref("refs/heads/main")?.rejection == "bad ?]0;x? reason")
        let rewrite = try #require(report.ref("refs/heads/blocked")?.rewrites.first)
        #expect(rewrite.refName == "refs/for/blocked")
        #expect(rewrite.new == ObjectID("37206e4e163fc1e1fe68ca32384ec58c3891b8a8"))
        #expect(rewrite.forcedUpdate)
        #expect(report.warnings == ["remote reported status on unknown ref: refs/heads/nobody"])
        #expect(report.problems == ["remote unpack failed: index-pack abnormal exit?[2J"])
    }

    @Test("a report without side-band, and malformed lines as git names them")
    func malformedReport() throws {
        let fixture = try PushFixture("update-hook-rejects")
        let commands = fixture.commands
        var server = try Self.server(
            fixture, report: [.text("unpack ok"), .text("bogus"), .text("ok refs/heads/main"), .flush], sideBand: false)
        var (_, _, outcome) = try drive(
            PushExchange(options: PushOptions(agent: Self.agent)) { _ in commands }, server: server, chunk: 1)
        var finished = try #require(outcome)
        var report = try #require(finished.report)
        #expect(report.problems == ["invalid status line from remote: bogus"])
        #expect(report.refs.isEmpty)

        server = try Self.server(fixture, report: [.flush])
        (_, _, outcome) = try drive(
            PushExchange(options: PushOptions(agent: Self.agent)) { _ in commands }, server: server, chunk: 1)
        finished = try #require(outcome)
        report = try #require(finished.report)
        #expect(report.unpackError == "unexpected flush packet while reading remote unpack status")
    }

    @Test("a report of more lines than the push can have is refused")
    func boundedReport() throws {
        let fixture = try PushFixture("update-hook-rejects")
        let commands = fixture.commands
        let server = try Self.server(
            fixture, report: [.text("unpack ok")] + Array(repeating: .text("ok refs/heads/main"), count: 200) + [.flush]
        )
        #expect(throws: ProtocolError.self) {
            _ = try drive(
                PushExchange(options: PushOptions(agent: Self.agent)) { _ in commands }, server: server, chunk: 4096)
        }
    }

    @Test("atomic and push options need the server's capabilities, in git's words")
    func missingCapabilities() throws {
        let fixture = try PushFixture("new-branch-empty")  // offers no push-options
        let commands = fixture.commands
        #expect(throws: PushError(.usage, "the receiving end does not support push options")) {
            _ = try drive(
                PushExchange(options: PushOptions(pushOptions: ["x"])) { _ in commands }, server: fixture.server,
                chunk: 99)
        }
    }
}
