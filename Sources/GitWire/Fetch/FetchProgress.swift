/// Progress of a clone, fetch or push, for a display like git's.
public enum FetchProgress: Sendable, Equatable {
    /// Progress text from the server (side-band 2), raw: `\r` and `\n` as sent. Show it after
    /// `remote: `, with control characters replaced.
    case remote([UInt8])
    /// Receiving objects and resolving deltas.
    case pack(PackProgress)
    /// A push making and sending its pack (enumerating, counting, compressing and writing
    /// objects).
    case packing(PackingProgress)
}

/// Receives ``FetchProgress``; called from the run loop's thread while the pack arrives and from
/// worker threads while deltas are resolved or searched for, one call at a time.
public typealias FetchProgressHandler = @Sendable (FetchProgress) -> Void
