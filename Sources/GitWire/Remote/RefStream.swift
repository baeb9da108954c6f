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

    /// What the exchange hands over: a ref, or the mark that the listing is complete.
    enum Item: Sendable {
        case ref(Ref)
        case complete
    }

    let items: AsyncThrowingStream<Item, any Error>

    /// Makes an iterator; a stream is meant to be iterated once.
    public func makeAsyncIterator() -> Iterator { Iterator(items: items.makeAsyncIterator()) }

    /// Iterates a ``RefStream``.
    public struct Iterator: AsyncIteratorProtocol {
        var items: AsyncThrowingStream<Item, any Error>.AsyncIterator
        var isDone = false

        /// The next ref; nil once the whole listing has arrived. Throws the exchange's error, or
        /// ``CancelledError`` when the listing ended early because the task was cancelled.
        public mutating func next() async throws -> Ref? {
            guard !isDone else { return nil }
            let item: Item?
            do {
                item = try await items.next()
            } catch {
                isDone = true
                throw error
            }
            switch item {
            case .ref(let ref): return ref
            case .complete:
                isDone = true
                return nil
            case nil:
                // The underlying stream ends without the completion mark only when the iterating
                // task was cancelled (an AsyncThrowingStream then answers nil, not an error).
                isDone = true
                throw CancelledError()
            }
        }
    }
}
