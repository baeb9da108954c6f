import GitWireCore
import Testing

/// `containsSubsequence` (what the ACK parser and the CLI use instead of `_StringProcessing`'s
/// `String.contains`) agrees with a plain search at every position, on random bytes over a small
/// alphabet so that partial matches are common.
@Suite("subsequence search")
struct SubsequenceTests {
    static func reference(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        needle.isEmpty
            || (0...max(0, haystack.count - needle.count)).contains { start in
                haystack.count >= needle.count && Array(haystack[start..<(start + needle.count)]) == needle
            }
    }

    @Test func agreesWithAPlainSearch() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5000 {
            let haystack = (0..<Int.random(in: 0...12, using: &generator)).map { _ in UInt8.random(in: 0...2) }
            let needle = (0..<Int.random(in: 0...4, using: &generator)).map { _ in UInt8.random(in: 0...2) }
            #expect(haystack.containsSubsequence(needle) == Self.reference(haystack, needle))
            #expect(
                haystack[...].dropFirst().containsSubsequence(needle)
                    == Self.reference(Array(haystack.dropFirst()), needle))
        }
        #expect("ACK 0 continue".utf8.containsSubsequence("continue".utf8))
        #expect(!"ACK 0 contin".utf8.containsSubsequence("continue".utf8))
        #expect("a://b".utf8.containsSubsequence("://".utf8) && !"a:/b".utf8.containsSubsequence("://".utf8))
    }
}
