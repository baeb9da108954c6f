import GitWireCore
import GitWireReplay
import GitWireTestSupport
import Testing

/// Pack bytes go from the bytes received to ``FetchEvent/packData(_:)`` as views, not copies: a
/// recorded clone's server bytes (git 2.39's upload-pack) are fed to the codec in inputs of
/// various sizes, and each pack chunk handed out is checked to lie in one of those inputs' memory
/// or else counted as copied.
@Suite("pkt-line views: pack bytes not copied")
struct PacketViewTests {
    /// The server's bytes of `name` cut into inputs: `packets` whole packets each (re-encoded as
    /// they came), or `size` bytes each.
    static func inputs(_ name: String, packets: Int? = nil, size: Int = 0) throws -> [[UInt8]] {
        let bytes = try FetchFixture(name).session.bytes(from: .server)
        guard let packets else {
            return stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) }
        }
        var decoder = PktLineDecoder()
        decoder.append(bytes)
        var lines: [PktLine] = []
        while let line = try decoder.next() { lines.append(line) }
        return stride(from: 0, to: lines.count, by: packets).map { start in
            lines[start..<min(start + packets, lines.count)].flatMap(\.encoded)
        }
    }

    /// Runs a clone exchange over `inputs`; returns the pack, the pack bytes that were not views
    /// of an input, and the bytes the decoder copied.
    static func clone(_ name: String, _ inputs: [[UInt8]]) throws -> (pack: [UInt8], copiedPack: Int, copied: Int) {
        let fixture = try FetchFixture(name)
        let options = FetchOptions(
            protocolVersion: fixture.protocolVersion, includeTag: false, progress: true,
            agent: try fixture.clientAgent(),
            refPrefixes: fixture.protocolVersion == .v2 ? ["HEAD", "refs/heads/", "refs/tags/"] : [])
        var codec = ExchangeCodec(
            FetchExchange(options: options, localTips: [], graph: EmptyCommitGraph(), selectWants: cloneWants))
        _ = try codec.opening(greeting: [], context: ExchangeContext())
        let ranges = inputs.map { input in
            input.withUnsafeBufferPointer {
                UInt(bitPattern: $0.baseAddress)..<(UInt(bitPattern: $0.baseAddress) + UInt($0.count))
            }
        }
        var pack: [UInt8] = []
        var copiedPack = 0
        for input in inputs {
            _ = try codec.receive(input) { event in
                guard case .packData(let bytes) = event else { return }
                pack += bytes
                let start = bytes.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
                if !ranges.contains(where: { $0.contains(start) && start + UInt(bytes.count) <= $0.upperBound }) {
                    copiedPack += bytes.count
                }
            }
        }
        #expect(codec.output != nil)
        return (pack, copiedPack, codec.copiedByteCount)
    }

    /// Packets whole in their input: no pack byte is copied between the input and the event
    /// (before views, each was copied three times: into the decoder, out of it, out of the band).
    @Test(arguments: ["v0-clone", "v2-clone"], [1, 3, 1000])
    func wholePacketsAreNotCopied(name: String, packets: Int) throws {
        let inputs = try Self.inputs(name, packets: packets)
        let (pack, copiedPack, copied) = try Self.clone(name, inputs)
        #expect(pack == (try DecodedFetch(FetchFixture(name).session).pack))
        #expect(copiedPack == 0)
        #expect(copied == 0)
    }

    /// Packets split between inputs: the bytes of a split packet are copied once, the rest not at
    /// all, so no pack byte is copied more than once.
    @Test(arguments: ["v0-clone", "v2-clone"], [1, 7, 1000, 65536, 100_003])
    func splitPacketsAreCopiedOnce(name: String, size: Int) throws {
        let inputs = try Self.inputs(name, size: size)
        let received = inputs.reduce(0) { $0 + $1.count }
        let (pack, copiedPack, copied) = try Self.clone(name, inputs)
        #expect(pack == (try DecodedFetch(FetchFixture(name).session).pack))
        #expect(copiedPack <= pack.count)
        #expect(copied <= received)
        if size >= 65536 { #expect(copiedPack < pack.count) }
    }
}
