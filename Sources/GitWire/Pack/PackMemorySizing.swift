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
    /// (``DeltaTreeResolver``): a sixteenth of the pack, between 512 KiB and 4 MiB; half that
    /// with reference deltas, whose named results wait on the stack for their children. Each
    /// resolving thread holds up to this much.
    static func hashBatchBytes(packBytes: UInt64, deferringChildren: Bool) -> Int {
        let bytes = Int(min(4 << 20, max(512 << 10, packBytes / 16)))
        return deferringChildren ? bytes / 2 : bytes
    }
}
