import GitWire
import GitWireTestSupport

/// Bytes real git servers send, captured once per test process by running `git upload-pack` on
/// the shared test repositories.
enum ServerCaptures {
    /// The protocol v0 ref advertisement of `name` (`git upload-pack --advertise-refs`).
    static func v0Advertisement(_ name: String) throws -> [UInt8] {
        try git(["upload-pack", "--advertise-refs", TestRepositories.shared.path(name)]).standardOutput
    }

    /// The protocol v2 capability advertisement of `name`.
    static func v2Capabilities(_ name: String) throws -> [UInt8] {
        try git(
            ["upload-pack", "--advertise-refs", TestRepositories.shared.path(name)],
            environment: ["GIT_PROTOCOL": "version=2"]
        ).standardOutput
    }

    /// The answer of `git upload-pack --stateless-rpc` (protocol v2) on `name` to `request`.
    static func v2Response(_ name: String, to request: [PktLine]) throws -> [UInt8] {
        try git(
            ["upload-pack", "--stateless-rpc", TestRepositories.shared.path(name)],
            environment: ["GIT_PROTOCOL": "version=2"], input: try PktLineEncoder.encode(request)
        ).standardOutput
    }

    /// The `ls-refs` response for `name`, asked for peeled tags and symrefs as git asks.
    static func lsRefsResponse(_ name: String) throws -> [UInt8] {
        try v2Response(
            name,
            to: [
                .text("command=ls-refs"), .text("object-format=sha1"), .delimiter, .text("peel"), .text("symrefs"),
                .text("unborn"), .flush,
            ])
    }

    /// A protocol v2 `fetch` response for `name`'s `main` with side-band progress and pack data.
    static func fetchResponse(_ name: String) throws -> [UInt8] {
        let main = try gitText(["rev-parse", "main"], in: TestRepositories.shared.path(name))
        return try v2Response(
            name,
            to: [
                .text("command=fetch"), .text("object-format=sha1"), .delimiter, .text("ofs-delta"),
                .text("want \(main)"), .text("done"), .flush,
            ])
    }

    /// Splits `bytes` into packets with a parser written independently of ``PktLineDecoder``:
    /// the reference the decoder is checked against.
    static func referencePackets(_ bytes: [UInt8]) -> [PktLine] {
        var packets: [PktLine] = []
        var index = 0
        while index + 4 <= bytes.count {
            let length = Int(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16)!
            switch length {
            case 0: packets.append(.flush)
            case 1: packets.append(.delimiter)
            case 2: packets.append(.responseEnd)
            default:
                packets.append(.data(Array(bytes[(index + 4)..<(index + length)])))
                index += length
                continue
            }
            index += 4
        }
        precondition(index == bytes.count, "capture does not end on a packet boundary")
        return packets
    }
}
