/// An exchange started on a run loop: the handle to cancel it, from the loop's thread.
public final class RunningExchange {
    private var cancelAction: (() -> Void)?

    init(cancel: @escaping () -> Void) { cancelAction = cancel }

    /// Stops the exchange: the connection closes and the completion gets ``CancelledError``.
    /// Does nothing once the exchange has completed.
    public func cancel() {
        let action = cancelAction
        cancelAction = nil
        action?()
    }
}

@available(*, unavailable)
extension RunningExchange: Sendable {}
