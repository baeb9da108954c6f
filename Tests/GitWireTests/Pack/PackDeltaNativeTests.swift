import GitWire
import GitWireTestSupport
import Testing

/// The delta applier's C run against its Swift reference (the C code is in GitWirePOSIX's
/// CGitWire, so this test is not in GitWireCoreTests with the other delta tests).
@Suite struct PackDeltaNativeTests {
    let base = Array("The quick brown fox jumps over the lazy dog".utf8)

    /// `applyNative` (the instructions run in C, as delta resolution runs them) gives what `apply`
    /// gives, result or error, on random deltas: valid ones of random copies and inserts, and the
    /// same with bytes changed, cut short or lengthened.
    @Test func nativeRunAgreesWithTheReference() throws {
        var generator = SystemRandomNumberGenerator()
        let big = (0..<70_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var checked = (valid: 0, refused: 0)
        for round in 0..<3000 {
            let source = round % 3 == 0 ? base : big
            var instructions: [UInt8] = []
            var size = 0
            for _ in 0..<Int.random(in: 0...12) {
                if Bool.random() {
                    let offset = Int.random(in: 0..<source.count)
                    let length = Int.random(in: 1...min(source.count - offset, 0x10000))
                    instructions += copyInstruction(offset: offset, size: length)
                    size += length
                } else {
                    let bytes = (0..<Int.random(in: 1...127)).map { _ in UInt8.random(in: 0...255) }
                    instructions += insertInstruction(bytes)
                    size += bytes.count
                }
            }
            var delta = makeDelta(baseSize: source.count, resultSize: size, instructions)
            switch round % 4 {
            case 1: delta[Int.random(in: 0..<delta.count)] = UInt8.random(in: 0...255)
            case 2: delta.removeLast(Int.random(in: 0...min(3, delta.count)))
            case 3: delta.append(UInt8.random(in: 0...255))
            default: break
            }
            let reference = Result { () throws(DeltaError) in try Delta.apply(delta[...], to: source[...]) }
            let native = Result { () throws(DeltaError) in try Delta.applyNative(delta[...], to: source[...]) }
            #expect(native == reference, "round \(round)")
            if case .success = reference { checked.valid += 1 } else { checked.refused += 1 }
        }
        // Both kinds were met many times.
        #expect(checked.valid > 500 && checked.refused > 500, "\(checked)")
    }
}
