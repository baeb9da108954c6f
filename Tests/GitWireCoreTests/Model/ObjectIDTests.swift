import GitWireCore
import Testing

@Suite("Object ids")
struct ObjectIDTests {
    @Test func hexRoundTripsForRandomIdsAndAgreesWithTheBytes() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let bytes = (0..<20).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let id = ObjectID(bytes: bytes, format: .sha1)!
            let expected = bytes.map {
                String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16)
            }
            .joined()
            #expect(id.hex == expected)
            #expect(ObjectID(expected) == id)
            #expect(ObjectID(expected.uppercased()) == id)
            #expect(id.bytes == bytes)
        }
    }

    @Test(arguments: [
        "", "0", String(repeating: "a", count: 39), String(repeating: "a", count: 41),
        String(repeating: "a", count: 39) + "g", "g" + String(repeating: "a", count: 39),
        String(repeating: "0", count: 20) + " " + String(repeating: "0", count: 19),
    ])
    func rejectsAnythingButFortyHexDigits(text: String) {
        #expect(ObjectID(text) == nil)
    }

    @Test func ordersLikeTheirBytes() {
        let ids = [
            "ff" + String(repeating: "0", count: 38), "00" + String(repeating: "f", count: 38),
            String(repeating: "0", count: 39) + "1",
        ]
        .compactMap(ObjectID.init)
        #expect(ids.sorted().map(\.hex) == ids.map(\.hex).sorted())
        #expect(ObjectID.zero(.sha1).isZero)
    }
}
