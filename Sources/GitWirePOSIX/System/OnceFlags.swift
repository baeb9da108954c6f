import Synchronization

/// A fixed number of flags, each set at most once, by any thread: ``claim(_:)`` answers true to
/// exactly one caller per flag. Delta resolution claims each delta before resolving it, so no
/// delta is resolved twice, whatever the pack says.
package final class OnceFlags: @unchecked Sendable {
    // @unchecked: the words are only touched through atomic operations, and the buffer lives as
    // long as the object.
    private let words: UnsafeMutablePointer<Atomic<UInt64>>
    private let wordCount: Int
    /// The number of flags.
    package let count: Int

    /// Makes `count` flags, none set.
    package init(count: Int) {
        self.count = count
        wordCount = (count + 63) / 64
        words = .allocate(capacity: max(1, wordCount))
        for word in 0..<wordCount { (words + word).initialize(to: Atomic(0)) }
    }

    deinit {
        words.deinitialize(count: wordCount)
        words.deallocate()
    }

    /// Sets flag `index`; returns whether this call set it (false when it was set already).
    package func claim(_ index: Int) -> Bool {
        precondition(index >= 0 && index < count, "flag \(index) of \(count)")
        let bit = UInt64(1) << UInt64(index & 63)
        return words[index >> 6].bitwiseOr(bit, ordering: .relaxed).oldValue & bit == 0
    }

    /// Whether flag `index` is set.
    package func isClaimed(_ index: Int) -> Bool {
        precondition(index >= 0 && index < count, "flag \(index) of \(count)")
        return words[index >> 6].load(ordering: .relaxed) & (UInt64(1) << UInt64(index & 63)) != 0
    }
}
