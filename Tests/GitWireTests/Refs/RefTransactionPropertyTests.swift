import GitWire
import GitWireFuzzTargets
import Testing

/// `RefStore.apply` against `git update-ref` on random sets of existing refs (loose and packed)
/// and random updates (creations, changes, deletions, `x`/`x/y` pairs, branches to a blob,
/// expected old values, names twice): the same successes and failures, the same refs after,
/// and no lock left (see `FuzzRefs`, also the `ref-transaction` fuzz target).
@Suite("ref transactions against git update-ref")
struct RefTransactionPropertyTests {
    @Test(arguments: [true, false])
    func randomTransactionsMatchGit(atomic: Bool) throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<100 {
            let input = (0..<48).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let difference = try FuzzRefs.compare(input, atomic: atomic)
            #expect(difference == nil, "input \(input): \(difference ?? "")")
            if difference != nil { break }
        }
    }
}
