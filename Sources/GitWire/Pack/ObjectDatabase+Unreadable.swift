import Synchronization

extension ObjectDatabase {
    /// What a command does with a pack directory that exists but cannot be listed (git's
    /// `error: unable to open object pack directory: <path>: <reason>`), each directory once a
    /// process; nothing is done without a handler.
    private static let unreadablePackDirectories = Mutex<
        (handler: (@Sendable (String) -> Void)?, reported: Set<String>)
    >((nil, []))

    /// Installs what is done with the message for a pack directory that cannot be listed (the
    /// command line prints it as git's error line); the directory is skipped in any case.
    package static func onUnreadablePackDirectory(_ handler: @escaping @Sendable (String) -> Void) {
        unreadablePackDirectories.withLock { $0.handler = handler }
    }

    static func reportUnreadablePackDirectory(_ message: String) {
        let handler = unreadablePackDirectories.withLock { state in
            state.reported.insert(message).inserted ? state.handler : nil
        }
        handler?(message)
    }
}
