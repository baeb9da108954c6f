/// Progress of a clone or fetch, for a display like git's.
public enum FetchProgress: Sendable, Equatable {
    /// Progress text from the server (side-band 2), raw: `\r` and `\n` as sent. Show it after
    /// `remote: `, with control characters replaced.
    case remote([UInt8])
    /// Receiving objects and resolving deltas.
    case pack(PackProgress)
    /// What git prints as `warning: <text>` while it fetches (a filter the server ignores).
    case warning(String)
}

/// Receives ``FetchProgress``; called from the run loop's thread while the pack arrives and from
/// worker threads while deltas are resolved, one call at a time.
public typealias FetchProgressHandler = @Sendable (FetchProgress) -> Void
