/// The refs of a remote as they arrive, from ``Remote/refs(_:)``: an `AsyncSequence` that ends
/// normally only after the whole listing arrived. A listing that stops short throws: the
/// exchange's error, or ``CancelledError`` when the task iterating it was cancelled, so a
/// cancelled loop never looks like a short but complete listing.
///
/// ```swift
/// do {
///     for try await ref in remote.refs() { print(ref.name) }
///     // Every ref of the remote was printed.
/// } catch is CancelledError {
///     // The task was cancelled; what was printed is only part of the listing.
/// }
/// ```
public struct RefStream: AsyncSequence, Sendable {
    /// Each element is one ref, in the server's order.
    public typealias Element = Ref

    /// Begins the listing on the shared loop, once per iteration.
    let start: LoopBridge<Ref, RefListing>.Start

    /// Makes an iterator; each iteration lists the refs anew (a stream is meant to be iterated
    /// once). The listing starts with the first ``Iterator/next()``.
    public func makeAsyncIterator() -> Iterator { Iterator(consumer: LoopBridgeConsumer(LoopBridge(start))) }

    /// Iterates a ``RefStream``; dropping it closes the connection.
    public struct Iterator: AsyncIteratorProtocol {
        let consumer: LoopBridgeConsumer<Ref, RefListing>

        /// The next ref; nil once the whole listing has arrived. Throws the exchange's error, or
        /// ``CancelledError`` when the listing ended early because the task was cancelled.
        public mutating func next() async throws -> Ref? { try await consumer.bridge.next() }
    }
}
