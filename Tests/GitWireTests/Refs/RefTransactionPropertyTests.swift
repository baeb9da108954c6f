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

    /// Inputs the random runs found, kept: a packed ref set to the value it has while a foreign
    /// lock sits in a directory where its loose file would go (git writes nothing for such an
    /// update, so the directory is no obstacle; gitwire refused it as blocked).
    @Test(arguments: [
        [
            125, 1, 25, 10, 6, 26, 240, 96, 0, 84, 227, 194, 65, 5, 82, 134, 75, 208, 35, 26, 220, 78, 213, 150, 37,
            47, 46, 255, 140, 214, 144, 68, 205, 10, 42, 129, 208, 58, 75, 227, 166, 23, 16, 91, 152, 206, 113, 170,
        ] as [UInt8]
    ])
    func foundInputsMatchGit(input: [UInt8]) throws {
        for atomic in [false, true] {
            let difference = try FuzzRefs.compare(input, atomic: atomic)
            #expect(difference == nil, "atomic \(atomic): \(difference ?? "")")
        }
    }
}
