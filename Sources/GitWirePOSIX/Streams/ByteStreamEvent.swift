import GitWireCore

/// What a run loop tells a stream's delegate.
public enum ByteStreamEvent: Sendable, Hashable {
    /// The stream opened: a non-blocking connect finished, or the descriptor was ready at once.
    case openCompleted
    /// Bytes can be read without blocking (or the end or an error is there to be read).
    case hasBytesAvailable
    /// The output stream has no queued bytes left and takes more.
    case hasSpaceAvailable
    /// The peer closed its end; nothing more will be read.
    case endEncountered
    /// The stream failed; its ``ByteStream/error`` says why.
    case errorOccurred
}

/// Where a stream is in its life.
public enum ByteStreamStatus: Sendable, Hashable {
    /// Made but not opened.
    case notOpen
    /// A connect is under way.
    case opening
    /// Open for reading or writing.
    case open
    /// The end of the input was read.
    case atEnd
    /// Closed by its owner.
    case closed
    /// Failed; see ``ByteStream/error``.
    case error
}

/// Receives a scheduled stream's events. Every call happens on the thread of the run loop the
/// stream is scheduled in. The stream keeps its delegate alive until it is closed.
public protocol ByteStreamDelegate: AnyObject {
    /// Handles one event of `stream`.
    func stream(_ stream: ByteStream, handle event: ByteStreamEvent)
}
