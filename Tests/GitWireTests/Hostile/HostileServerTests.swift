import GitWire
import GitWireTestSupport
import Testing

/// Servers that break the protocol, each scripted on a fake git:// server and met by real
/// `git ls-remote`, `gitwire ls-remote` and `Remote.lsRemote`, in that order. Exit status and
/// standard output always match git's; standard error too, except where gitwire says more
/// precisely what was wrong: there both messages are compared whole with the ones documented in
/// ``HostileServer/difference``, each difference with its reason.
enum HostileServer: String, CaseIterable, CustomTestStringConvertible, Sendable {
    // Protocol v0 advertisements.
    case badObjectID, missingSpaceAfterID, placeholderWithoutCapabilities, capabilitiesOnALaterLine
    case shallowLines, refAfterShallow, versionOnePreamble, delimiterInV0, responseEndInV0
    case hangUpBeforeFlush, hangUpBeforeAnything, hangUpInsideAPacket, errMidAdvertisement, errFirst
    case haveLine, badLengthCharacters, reservedLength, garbageAfterFlush, peeledLineFirst
    // Protocol v2.
    case v2WithoutLsRefs, v2HangUpInCapabilities, v2DelimiterInCapabilities, v2HangUpInLsRefs
    case v2InvalidObjectID, v2LineWithoutName, v2BadPeeledID, v2DelimiterInLsRefs, v2ErrInLsRefs
    case v2UnknownAttribute

    var testDescription: String { rawValue }

    static let oid = "1234567890abcdef1234567890abcdef12345678"
    static let otherOID = "abcdefabcdefabcdefabcdefabcdefabcdefabcd"

    /// What the server does after reading the request line. Valid parts are real captures of
    /// `git upload-pack` on the small test repository.
    func script() throws -> [FakeGitServer.Step] {
        let advertisement = packets(of: try ServerCaptures.v0Advertisement("small.git"))
        let refLines = Array(advertisement.dropLast())
        let capabilities = packets(of: try ServerCaptures.v2Capabilities("small.git"))
        let lsRefs = packets(of: try ServerCaptures.lsRefsResponse("small.git"))
        let lsRefsLines = Array(lsRefs.dropLast())
        let oid = Self.oid
        func v2(_ response: [UInt8], hangUp: Bool = false) -> [FakeGitServer.Step] {
            [.send(bytes(of: capabilities)), .receiveCommand, .send(response)] + (hangUp ? [.hangUp] : [])
        }
        switch self {
        case .badObjectID: return [.send(packet("zz\(oid.dropFirst(2)) refs/heads/main\0multi_ack\n") + flushPacket)]
        case .missingSpaceAfterID: return [.send(packet("\(oid)refs/heads/main\0multi_ack\n") + flushPacket)]
        case .placeholderWithoutCapabilities:
            return [.send(packet("\(String(repeating: "0", count: 40)) capabilities^{}\n") + flushPacket)]
        case .capabilitiesOnALaterLine:
            let later = PktLine.data(refLines[1].payload!.dropLast() + Array("\0side-band-64k\n".utf8))
            return [.send(bytes(of: [refLines[0], later] + refLines.dropFirst(2) + [.flush]))]
        case .shallowLines:
            return [.send(bytes(of: refLines + [.text("shallow \(oid)"), .text("shallow \(Self.otherOID)"), .flush]))]
        case .refAfterShallow:
            return [
                .send(
                    bytes(of: [refLines[0], .text("shallow \(oid)"), .text("\(Self.otherOID) refs/heads/b"), .flush]))
            ]
        case .versionOnePreamble:
            return [
                .send(
                    try git(
                        ["upload-pack", "--advertise-refs", TestRepositories.shared.path("small.git")],
                        environment: ["GIT_PROTOCOL": "version=1"]
                    ).standardOutput)
            ]
        case .delimiterInV0: return [.send(bytes(of: refLines + [.delimiter, .flush]))]
        case .responseEndInV0: return [.send(bytes(of: refLines + [.responseEnd]))]
        case .hangUpBeforeFlush: return [.send(bytes(of: refLines)), .hangUp]
        case .hangUpBeforeAnything: return [.hangUp]
        case .hangUpInsideAPacket: return [.send(bytes(of: refLines) + Array("0040abc".utf8)), .hangUp]
        case .errMidAdvertisement:
            return [.send(bytes(of: Array(refLines.prefix(3)) + [.text("ERR access denied")])), .hangUp]
        case .errFirst: return [.send(packet("ERR no such repository\n")), .hangUp]
        case .haveLine: return [.send(bytes(of: refLines + [.text("\(Self.otherOID) .have"), .flush]))]
        case .badLengthCharacters: return [.send(Array("zzzz".utf8))]
        case .reservedLength: return [.send(bytes(of: Array(refLines.prefix(2))) + Array("0003".utf8))]
        case .garbageAfterFlush: return [.send(bytes(of: advertisement) + packet("garbage\n"))]
        case .peeledLineFirst: return [.send(packet("\(oid) refs/tags/v1^{}\0multi_ack\n") + flushPacket)]
        case .v2WithoutLsRefs:
            return [.send(bytes(of: capabilities.filter { $0.text?.hasPrefix("ls-refs") != true }))]
        case .v2HangUpInCapabilities: return [.send(bytes(of: capabilities.dropLast())), .hangUp]
        case .v2DelimiterInCapabilities: return [.send(bytes(of: capabilities.dropLast() + [.delimiter]))]
        case .v2HangUpInLsRefs: return v2(bytes(of: lsRefsLines), hangUp: true)
        case .v2InvalidObjectID:
            return v2(bytes(of: [lsRefsLines[0], .text("zz\(oid.dropFirst(2)) refs/heads/x"), .flush]))
        case .v2LineWithoutName: return v2(bytes(of: [lsRefsLines[0], .text(oid), .flush]))
        case .v2BadPeeledID: return v2(bytes(of: [.text("\(oid) refs/tags/x peeled:zz"), .flush]))
        case .v2DelimiterInLsRefs: return v2(bytes(of: lsRefsLines + [.delimiter]))
        case .v2ErrInLsRefs: return v2(bytes(of: [lsRefsLines[0], .text("ERR boom")]), hangUp: true)
        case .v2UnknownAttribute:
            return v2(bytes(of: [.text("\(oid) refs/tags/x future-attribute:1 peeled:\(Self.otherOID)"), .flush]))
        }
    }

    /// Where gitwire's message differs from git's on purpose: git's message (as git 2.39 prints
    /// it, checked on every run) and gitwire's, each without `fatal: `, and why they differ. nil
    /// where gitwire prints exactly what git prints.
    var difference: (git: String, ours: String, reason: String)? {
        let oid = Self.oid
        let zz = "zz\(oid.dropFirst(2))"
        let whereAndWhole =
            "gitwire says where the line came from and shows all of it, capabilities included, quoted"
            + " and escaped so that no control character from the server reaches the terminal"
        let protocolPrefix =
            "gitwire marks every malformed answer as a protocol error (git calls only some of them so),"
            + " so a server's fault reads apart from a local one; the words after the prefix are git's"
        let quotedLine =
            "the protocol-error prefix as above, and the server's line quoted and escaped (its newline"
            + " shown as \\n) instead of printed raw, so that no control character reaches the terminal"
        switch self {
        case .badObjectID:
            return (
                "protocol error: unexpected '\(zz) refs/heads/main'",
                "protocol error: unexpected line in the ref advertisement: '\(zz) refs/heads/main\\0multi_ack'",
                whereAndWhole
            )
        case .missingSpaceAfterID:
            return (
                "protocol error: unexpected '\(oid)refs/heads/main'",
                "protocol error: expected sha/ref, got: '\(oid)refs/heads/main\\0multi_ack'",
                "gitwire says what it expected instead of only that the line was unexpected, and shows"
                    + " the whole line, escaped"
            )
        case .refAfterShallow:
            return (
                "protocol error: unexpected '\(Self.otherOID) refs/heads/b'",
                "protocol error: unexpected line in the ref advertisement: '\(Self.otherOID) refs/heads/b'",
                whereAndWhole
            )
        case .delimiterInV0:
            return (
                "invalid packet", "protocol error: invalid packet 0001 in the ref advertisement",
                "gitwire names the packet and where it came, as a protocol error"
            )
        case .responseEndInV0:
            return (
                "invalid packet", "protocol error: invalid packet 0002 in the ref advertisement",
                "gitwire names the packet and where it came, as a protocol error"
            )
        case .hangUpInsideAPacket:
            return (
                "the remote end hung up upon initial contact",
                "protocol error: stream ended inside a pkt-line after 7 of 64 bytes",
                "git reports any end of the stream during the advertisement as a hang-up; gitwire says"
                    + " that it ended inside a packet, and how much of the packet came"
            )
        case .reservedLength:
            return (
                "protocol error: bad line length 3", "protocol error: bad line length 3 (0003 is reserved)",
                "gitwire says why the length is bad"
            )
        case .v2WithoutLsRefs:
            return (
                "server doesn't support 'ls-refs'", "protocol error: server doesn't support 'ls-refs'", protocolPrefix
            )
        case .v2InvalidObjectID:
            return (
                "invalid ls-refs response: \(zz) refs/heads/x",
                "protocol error: invalid ls-refs response: '\(zz) refs/heads/x\\n'", quotedLine
            )
        case .v2LineWithoutName:
            return (
                "invalid ls-refs response: \(oid)", "protocol error: invalid ls-refs response: '\(oid)\\n'", quotedLine
            )
        case .v2BadPeeledID:
            return (
                "invalid ls-refs response: \(oid) refs/tags/x peeled:zz",
                "protocol error: invalid ls-refs response: '\(oid) refs/tags/x peeled:zz\\n'", quotedLine
            )
        default: return nil
        }
    }
}

@Suite("hostile servers, compared with git")
struct HostileServerTests {
    @Test(arguments: HostileServer.allCases)
    func gitwireFailsOrSucceedsAsGitDoes(_ server: HostileServer) throws {
        let fake = try FakeGitServer(try server.script(), connections: 3)
        let url = fake.url()
        let expected = try git(["ls-remote", url], check: false)
        let actual = try gitwire(["ls-remote", "--timeout=10", url])
        #expect(actual.status == expected.status, "\(actual.errorText)")
        #expect(actual.standardOutput == expected.standardOutput)
        if let difference = server.difference {
            #expect(expected.status == 128, "\(expected.errorText)")
            // git's whole message, so that the documented difference is the real one.
            #expect(
                expected.errorText == "fatal: \(difference.git)\n",
                "git's message is no longer the one documented; is the difference still wanted? \(difference.reason)")
            #expect(actual.errorText == "fatal: \(difference.ours)\n")
        } else {
            #expect(actual.errorText == expected.errorText)
        }

        let remote = try Remote(url, timeout: .seconds(10))
        do {
            let listing = try remote.lsRemoteBlocking()
            #expect(expected.status == 0, "the library succeeded where git failed: \(expected.errorText)")
            #expect(lsRemoteText(listing.refs) == expected.standardOutput)
            #expect(listing.warnings.map { "warning: \($0)\n" }.joined() == expected.errorText)
        } catch {
            #expect(expected.status == 128)
            #expect("fatal: \(error)\n" == actual.errorText)
        }

        let connections = fake.finish()
        try #require(connections.count == 3)
        #expect(connections.allSatisfy { $0.clientClosed })
        #expect(connections[1].request == connections[0].request, "gitwire's request line is git's")
        #expect(connections[2].request == connections[0].request)
        for connection in connections.dropFirst() {
            #expect(agentless(connection.commands) == agentless(connections[0].commands))
        }
    }

    /// The command packets as text, with the `agent=` value removed since git's and gitwire's
    /// differ. Compared as text because git sends `object-format=sha1` without a newline where
    /// gitwire sends one (servers take both).
    func agentless(_ commands: [PktLine]) -> [String] {
        commands.map { packet in
            guard let text = packet.text else { return "\(packet)" }
            return text.hasPrefix("agent=") ? "agent=" : text
        }
    }
}
