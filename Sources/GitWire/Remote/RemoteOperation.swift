/// An exchange running on a run loop: cancel it from the loop's thread.
public final class RemoteOperation {
    private let cancelAction: () -> Void

    init(cancel: @escaping () -> Void) { cancelAction = cancel }

    /// Stops the operation: the connection closes and the completion gets ``CancelledError``.
    /// Does nothing once the operation has completed.
    public func cancel() { cancelAction() }
}

@available(*, unavailable)
extension RemoteOperation: Sendable {}

/// The operation was cancelled.
public struct CancelledError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Makes the error.
    public init() {}

    public var description: String { "cancelled" }
}
