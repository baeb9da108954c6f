import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// Text a server sends, shown on the user's terminal (gitwire issue #11): escape sequences must
/// not reach it. git 2.39 masks control characters in what it `die()`s with (an `ERR` line:
/// `fatal: remote error: ...`), each but tab and line feed becoming `?`; gitwire masks every
/// message it prints that way, band 3 (shown after `remote: ` as git shows it, but git 2.39
/// prints it raw), and
/// band 2 progress too, keeping the `\r` and `\n` that lay out progress lines (git 2.39 prints
/// band 2 raw; newer git masks it as well).
@Suite("hostile text from servers")
struct HostileTextTests {
    /// Escape sequences that set the window title and the colour, bell, DEL, another C0 control,
    /// a carriage return that would overwrite the line, a tab, and UTF-8 text that stays.
    static let hostile = "\u{1b}]0;TITLE\u{7}\u{1b}[31mred\u{7f}\u{1}\ttab\rCR \u{202e}RLO caf\u{e9}"
    /// What git 2.39's `die()` makes of it.
    static let masked = "?]0;TITLE??[31mred??\ttab?CR \u{202e}RLO caf\u{e9}"

    /// Bytes that no terminal may receive from the server: escape, bell, DEL, other C0 controls
    /// (carriage return aside: progress uses it).
    static func controlBytes(_ bytes: [UInt8], allowingCarriageReturn: Bool) -> [UInt8] {
        bytes.filter {
            ($0 < 0x20 && $0 != 0x09 && $0 != 0x0a && !(allowingCarriageReturn && $0 == 0x0d)) || $0 == 0x7f
        }
    }

    /// An `ERR` line during the negotiation: exactly git's `fatal:` line, masked.
    @Test(arguments: HostileFetchTarget.allCases)
    func errorLineDuringNegotiationIsMaskedAsGitMasksIt(_ target: HostileFetchTarget) throws {
        let fixture = try HostileFetchFixture.shared.get()
        let server = try HostileFetchServer(
            .v0(advertisement: fixture.advertisement), negotiation: .err(Self.hostile), then: [], connections: 2)
        let directory = try TemporaryDirectory()
        let gitOutput: ProcessOutput
        let ours: ProcessOutput
        switch target {
        case .clone:
            // The same path for both (the first attempt leaves nothing behind).
            let path = directory.appending("clone.git")
            gitOutput = try git(["clone", "--bare", server.url(), path], check: false)
            ours = try gitwire(["clone", "--bare", "--timeout=10", server.url(), path])
        case .fetch:
            let repository = directory.appending("local.git")
            try git(["init", "-q", "--bare", repository])
            gitOutput = try git(["fetch", server.url(), "+refs/heads/*:refs/heads/*"], in: repository, check: false)
            ours = try gitwire(["fetch", "--timeout=10", server.url(), repository, "+refs/heads/*:refs/heads/*"])
        }
        _ = server.finish()
        #expect(gitOutput.status == 128)
        #expect(ours.status == 128)
        #expect(ours.errorText.hasSuffix("fatal: remote error: \(Self.masked)\n"), "\(ours.errorText)")
        #expect(ours.errorText == gitOutput.errorText)
    }

    /// An `ERR` line instead of the ref advertisement, for ls-remote: git's line, masked.
    @Test(arguments: ["0", "2"])
    func errorLineInsteadOfTheAdvertisement(version: String) throws {
        let server = try HostileFetchServer(
            .v0(advertisement: PktLine.text("ERR \(Self.hostile)").encoded), then: [], connections: 2)
        let gitOutput = try git(["-c", "protocol.version=\(version)", "ls-remote", server.url()], check: false)
        let ours = try gitwire(["ls-remote", "--protocol-version=\(version)", "--timeout=10", server.url()])
        _ = server.finish()
        #expect(ours.status == 128)
        #expect(ours.errorText == "fatal: remote error: \(Self.masked)\n")
        #expect(ours.errorText == gitOutput.errorText)
    }

    /// Band 3 in the middle of the pack: shown after `remote: ` as git shows it, but masked (git
    /// 2.39 prints the message raw, escape sequences and all), then git's pack reader's lines.
    @Test(arguments: HostileFetchTarget.allCases)
    func band3IsMasked(_ target: HostileFetchTarget) throws {
        let fixture = try HostileFetchFixture.shared.get()
        let pack = fixture.pack(for: target)
        let server = try HostileFetchServer(
            .v0(advertisement: fixture.advertisement),
            then: [
                .send(sideBandPacket(1, pack.prefix(100))), .send(sideBandPacket(3, Array((Self.hostile + "\n").utf8))),
                .hangUp,
            ])
        let directory = try TemporaryDirectory()
        let ours: ProcessOutput
        switch target {
        case .clone:
            ours = try gitwire(["clone", "--bare", "--timeout=10", server.url(), directory.appending("c.git")])
        case .fetch:
            let repository = directory.appending("local.git")
            try git(["init", "-q", "--bare", repository])
            ours = try gitwire(["fetch", "--timeout=10", server.url(), repository, "+refs/heads/*:refs/heads/*"])
        }
        _ = server.finish()
        #expect(ours.status == 128)
        #expect(ours.errorText.contains("remote: \(Self.masked)\n\nfatal: early EOF\nfatal: "), "\(ours.errorText)")
        #expect(Self.controlBytes(ours.standardError, allowingCarriageReturn: false).isEmpty)
    }

    /// Band 2 progress: each line after `remote: ` with its control characters masked, the
    /// carriage returns and line feeds that lay out progress kept, as git keeps them.
    @Test func band2ProgressIsMaskedButKeepsItsLineBreaks() throws {
        let fixture = try HostileFetchFixture.shared.get()
        let progress = Array((Self.hostile + "\nCounting: 50%\rCounting: 100%\n").utf8)
        let c1 = Array("csi\u{9b}31m\n".utf8)
        let server = try HostileFetchServer(
            .v0(advertisement: fixture.advertisement),
            then: [.send(sideBandPacket(2, progress)), .send(sideBandPacket(2, c1)), .hangUp])
        let directory = try TemporaryDirectory()
        let ours = try gitwire([
            "clone", "--bare", "--progress", "--timeout=10", server.url(), directory.appending("c.git"),
        ])
        _ = server.finish()
        #expect(ours.status == 128)
        let text = ours.errorText
        // Not a terminal: git ends each remote line with eight spaces.
        let pad = "        "
        // The hostile line's own carriage return ends a progress line, as in git.
        let hostileLines = Self.masked.replacingOccurrences(of: "tab?CR", with: "tab\(pad)\rremote: CR")
        #expect(text.contains("remote: \(hostileLines)\(pad)\n"), "\(text)")
        #expect(text.contains("remote: Counting: 50%\(pad)\rremote: Counting: 100%\(pad)\n"), "\(text)")
        // C1 controls too, which git leaves.
        #expect(text.contains("remote: csi?31m\(pad)\n"), "\(text)")
        #expect(Self.controlBytes(ours.standardError, allowingCarriageReturn: true).isEmpty)
    }

    /// A v2 server whose `object-format` names no format gitwire knows, in escape sequences: the
    /// value is shown escaped, in git's message.
    @Test func objectFormatValueIsEscaped() throws {
        let fixture = try HostileFetchFixture.shared.get()
        var capabilities = fixture.v2Capabilities
        let line = PktLine.text("object-format=\u{1b}[31mevil").encoded
        // Right after `version 2`, before any `object-format` of the fixture's.
        capabilities.insert(contentsOf: line, at: PktLine.text("version 2").encoded.count)
        let server = try HostileFetchServer(.v2(capabilities: capabilities, refs: fixture.v2Refs), then: [])
        let ours = try gitwire(["ls-remote", "--timeout=10", server.url()])
        _ = server.finish()
        #expect(ours.status == 128)
        // git's words: `fatal: unknown object format '<name>' specified by server`.
        #expect(
            ours.errorText == "fatal: unknown object format '\\x1b[31mevil' specified by server\n", "\(ours.errorText)")
        #expect(Self.controlBytes(ours.standardError, allowingCarriageReturn: false).isEmpty)
    }

    @Test func maskingFunctions() {
        #expect(maskedForTerminal(Self.hostile) == Self.masked)
        #expect(maskedForTerminal(Array(Self.hostile.utf8)) == Array(Self.masked.utf8))
        #expect(maskedForTerminal("a\u{85}b\u{9b}c\u{a0}d\n") == "a?b?c\u{a0}d\n")
        #expect(maskedForTerminal(Array("a\u{85}b".utf8) + [0xc2]) == Array("a?b".utf8) + [0xc2])
        #expect(RemoteError(message: Array(Self.hostile.utf8)).description == "remote error: \(Self.masked)")
    }
}
