import GitWire
import Testing

/// Allocations sized from the wire are bounded by what has arrived (gitwire issue #11).
@Suite("budgets for sizes from the wire")
struct HostileBudgetTests {
    /// `readFully` with a count a peer might claim (1 TiB) allocates as bytes arrive: the short
    /// stream ends it with the counts, where reserving the count up front would abort.
    @Test func readFullyOfAClaimedTebibyte() throws {
        let (a, b) = try ByteStreamPair.socketPair()
        defer { b.close() }
        try a.output.writeFully([1, 2, 3])
        a.close()
        b.setTimeout(.seconds(30))
        #expect(throws: StreamError.unexpectedEnd(received: 3, expected: 1 << 40)) { try b.input.readFully(1 << 40) }
    }
}
