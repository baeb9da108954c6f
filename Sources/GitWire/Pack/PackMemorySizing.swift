/// How much memory indexing a pack may hold in its buffers, sized to the pack: a small pack takes
/// little, while a large one keeps the sizes its speed was measured with (git.git's and libgit2's
/// packs reach every upper bound here). What each buffer costs and saves is measured in
/// Documentation/Performance.md, "Every pack at hand".
enum PackMemorySizing {
    /// The bytes of work the first pass may queue for its helper thread (``FirstPassHelper``): 16
    /// bytes an object, between 1 and 8 MiB. The queue absorbs the two threads' differences in
    /// speed; when it is full the parser checks streams itself, so a smaller queue moves work
    /// between the threads rather than adding any.
    static func firstPassQueueBytes(objectCount: UInt32) -> Int {
        min(8 << 20, max(1 << 20, Int(objectCount) * 16))
    }

    /// The bytes of delta results a resolving thread collects before naming them together
    /// (``DeltaTreeResolver``). Each resolving thread holds up to this much.
    ///
    /// - A pack under ``smallPackBytes``: 1 MiB, its peak then 2-4 MiB lower (swift-nio's and
    ///   dulwich's packs, where git's whole peak is 9-14 MiB) for 2-6% more CPU time there (fewer
    ///   results a batch leave more of the SHA-1 lanes idle). Documentation/Performance.md, "Hash
    ///   batches of small packs".
    /// - A larger pack: an eighth of it, between 2 and 4 MiB (at 2.7 MiB libgit2's repacked pack,
    ///   whose large results leave the lanes short, took 6% more CPU time). With reference deltas,
    ///   whose named results wait on the stack for their children, 2 MiB: smaller batches there
    ///   made a long reference chain spill its bases (DeltaChainTests, at 256 KiB) and saved
    ///   little on libgit2's pack.
    static func hashBatchBytes(packBytes: UInt64, deferringChildren: Bool) -> Int {
        guard packBytes >= smallPackBytes else { return 1 << 20 }
        guard !deferringChildren else { return 2 << 20 }
        return Int(min(4 << 20, max(2 << 20, packBytes / 8)))
    }

    /// The bytes `index-pack` of a pack file reads at a time (``PackIndexer/indexPack(at:options:progress:)``):
    /// 256 KiB for a pack under ``smallPackBytes``, 1 MiB for a larger one. The first pass's
    /// streams and queued bytes are slices of these chunks, each keeping its whole chunk alive
    /// until the helper thread is done with it, so the chunks held at once set the first pass's
    /// peak: on swift-nio's clone pack four 1 MiB chunks were the heap's peak (6.3 MB against
    /// resolution's 4.2 MB). Larger packs keep 1 MiB, the size their speed was measured with.
    static func readChunkBytes(packBytes: UInt64) -> Int {
        packBytes < smallPackBytes ? 256 << 10 : 1 << 20
    }

    /// Below this size a pack's hash batches are smallest (``hashBatchBytes(packBytes:deferringChildren:)``).
    static let smallPackBytes: UInt64 = 32 << 20
}
