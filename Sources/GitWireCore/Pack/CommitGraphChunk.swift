/// The chunks of a commit-graph file (`gitformat-commit-graph`), named by their four-letter ids:
/// the one list ``CommitGraphFile`` reads and ``CommitGraphWriter`` writes.
package struct CommitGraphChunk: Hashable, Sendable {
    /// The id as the chunk table stores it: four ASCII letters, big-endian.
    package let id: UInt32

    private init(_ name: StaticString) {
        id = name.withUTF8Buffer { $0.reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
    }

    /// The id's four letters, for messages.
    package var name: String { String(decoding: bytes, as: UTF8.self) }

    /// The id's four bytes, as the chunk table stores them.
    package var bytes: [UInt8] { [UInt8(id >> 24), UInt8(id >> 16 & 0xff), UInt8(id >> 8 & 0xff), UInt8(id & 0xff)] }

    /// `OIDF`: the fan-out of the commit ids.
    package static let fanOut = Self("OIDF")
    /// `OIDL`: the commit ids in name order.
    package static let lookup = Self("OIDL")
    /// `CDAT`: each commit's tree, parents, level and date.
    package static let commitData = Self("CDAT")
    /// `GDA2`: corrected commit date offsets (generation data v2).
    package static let generationData = Self("GDA2")
    /// `GDO2`: corrected commit date offsets past 31 bits.
    package static let generationOverflow = Self("GDO2")
    /// `EDGE`: the parents past the first of octopus merges.
    package static let extraEdges = Self("EDGE")
    /// `BASE`: the checksums of the layers below.
    package static let baseGraphs = Self("BASE")
}
