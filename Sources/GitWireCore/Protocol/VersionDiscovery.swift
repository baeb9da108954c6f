/// Tells which protocol version the server answered with, from its first packet, as git's
/// `discover_version` does: `version 2` starts a capability advertisement, `version 1` a v0
/// advertisement, anything else is v0 already.
package enum VersionDiscovery {
    package static func version(of firstPacket: PktLine) -> ProtocolVersion {
        switch firstPacket.text {
        case "version 2": return .v2
        case "version 1": return .v1
        default: return .v0
        }
    }
}

/// Collects a protocol v2 capability advertisement: lines up to a flush.
package struct CapabilityAdvertisementParser {
    private(set) var capabilities = Capabilities()
    private var lines = 0
    /// The most capability lines taken (servers send about ten; git sets no limit): an endless
    /// advertisement is an error, not an endless list.
    package static let lineLimit = 1000

    /// Adds one packet; true when the advertisement is complete.
    package mutating func receive(_ packet: PktLine) throws -> Bool {
        switch packet {
        case .flush: return true
        case .data:
            lines += 1
            guard lines <= Self.lineLimit else {
                throw ProtocolError("capability advertisement of more than \(Self.lineLimit) lines")
            }
            capabilities.add(packet.text ?? "")
        case .delimiter, .responseEnd: throw ProtocolError("expected flush after capabilities", prefixed: false)
        }
        return false
    }
}
