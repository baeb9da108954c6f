import GitWireCore
import Testing

/// The filter that strips smart HTTP's `# service=…` preamble, in every chunking.
@Suite struct SmartHTTPPreambleTests {
    static let chunkSizes = [1, 2, 3, 4, 5, 7, 64, 65520, Int.max]
    static let advertisement = Array(
        "00571234567890abcdef1234567890abcdef12345678 HEAD\0multi_ack side-band-64k symref=HEAD:refs/heads/main\n0000"
            .utf8)

    /// Feeds `response` in pieces of `size`; returns what the filter passed on, then checks the end.
    static func filter(_ response: [UInt8], size: Int) throws -> [UInt8] {
        var preamble = SmartHTTPPreamble(service: .uploadPack)
        var passed: [UInt8] = []
        var offset = 0
        while offset < response.count {
            let end = size >= response.count - offset ? response.count : offset + size
            passed += try preamble.take(Array(response[offset..<end]))
            offset = end
        }
        try preamble.checkAtEnd()
        return passed
    }

    @Test(arguments: chunkSizes)
    func stripsTheServiceLineAndWhatFollowsUpToTheFlush(size: Int) throws {
        let response = Array("001e# service=git-upload-pack\n0009extra0000".utf8) + Self.advertisement
        #expect(try Self.filter(response, size: size) == Self.advertisement)
    }

    /// A v2 server may start with `version 2`: it is the advertisement, passed on byte for byte
    /// (upper-case length digits too).
    @Test(arguments: chunkSizes)
    func keepsAVersion2Start(size: Int) throws {
        let response = Array("000Eversion 2\n0013ls-refs=unborn\n0000".utf8)
        #expect(try Self.filter(response, size: size) == response)
    }

    /// A long preamble of many packets: every byte read once, everything after it passed on.
    @Test func longPreamble() throws {
        let packets = [UInt8](repeating: 0, count: 200_000).indices.map { _ in Array("0005x".utf8) }.joined()
        let response = Array("001e# service=git-upload-pack\n".utf8) + packets + Array("0000".utf8) + Self.advertisement
        #expect(try Self.filter(response, size: 16384) == Self.advertisement)
    }

    @Test func refusesWhatIsNotAPreamble() throws {
        #expect(throws: ProtocolError("invalid server response; expected service, got flush packet")) {
            try Self.filter(Array("0000".utf8), size: 1)
        }
        #expect(throws: ProtocolError("invalid server response; got '# service=git-receive-pack'")) {
            try Self.filter(Array("001f# service=git-receive-pack\n0000".utf8), size: 3)
        }
        #expect(throws: ProtocolError("invalid server response; the discovery response ended before its advertisement"))
        {
            try Self.filter(Array("001e# service=git-upload-pack\n0005x".utf8), size: 2)
        }
    }
}

/// Where a smart HTTP repository is: credentials kept apart from the URL requests go to, read byte
/// by byte as git reads URLs.
@Suite struct SmartHTTPLocationTests {
    @Test func credentialsAreKeptApart() throws {
        let location = try SmartHTTP.Location("HTTPS://us%65r:p%40ss@example.org:8443/a/repo.git/?x#y")
        #expect(location.isSecure)
        #expect(location.username == "user")
        #expect(location.password?.revealed == "p@ss")
        #expect(location.base == "HTTPS://example.org:8443/a/repo.git")
        #expect(location.hostAndPort == "example.org:8443")
        #expect(location.path == "a/repo.git")
    }

    /// An '@' or ':' joined to a combining scalar (U+05A4) is still one to git: the credentials
    /// before the last '@' never reach the base URL (the url fuzz target found them there).
    @Test func separatorsJoinedToCombiningScalars() throws {
        let location = try SmartHTTP.Location("https://a@b:se\u{5A4}:cret@\u{5A4}host/\u{301}r")
        #expect(location.username == "a@b")
        #expect(location.password?.revealed == "se\u{5A4}:cret")
        #expect(location.base == "https://\u{5A4}host/\u{301}r")
        #expect(!location.base.contains("cret"))
        let slash = try SmartHTTP.Location("http://\u{301}h/x")
        #expect(slash.hostAndPort == "\u{301}h")
        #expect(throws: RemoteURLError.self) { try SmartHTTP.Location("ftp://h/x") }
    }
}
