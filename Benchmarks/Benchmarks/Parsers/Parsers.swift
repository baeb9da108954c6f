import Benchmark
import GitWire
import GitWireReplay

// In-process benchmarks of the parsers every listing, clone and fetch goes through: pkt-line
// decoding and ref advertisement parsing on a real advertisement (the server's half of the
// many-refs session that Tools/capture-fixtures.sh recorded from `git daemon`), delta application
// and SHA-1 with collision detection. Each iteration does the whole job once; throughput is jobs
// per second, and the malloc counts are per job.

/// The folder of the package's fixtures, found from this file's place in the tree.
let fixtures: String = {
    var path = #filePath
    for _ in 0..<4 {  // Benchmarks/Benchmarks/Parsers/Parsers.swift → the package's folder
        path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
    }
    return path + "/Fixtures"
}()

/// The bytes the server sent in the recorded session `name`.
func serverBytes(_ name: String) -> [UInt8] {
    do {
        return try Session(contentsOfFile: "\(fixtures)/\(name)").bytes(from: .server)
    } catch {
        fatalError("cannot read the fixture \(name): \(error)")
    }
}

/// All packets in `bytes`.
func packets(_ bytes: [UInt8]) throws -> [PktLine] {
    var decoder = PktLineDecoder()
    decoder.append(bytes)
    var packets: [PktLine] = []
    while let packet = try decoder.next() { packets.append(packet) }
    return packets
}

/// `count` bytes from a fixed xorshift sequence (incompressible, the same every run).
func pseudoRandomBytes(_ count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [UInt8] {
    var state = seed
    var bytes: [UInt8] = []
    bytes.reserveCapacity(count)
    while bytes.count < count {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        withUnsafeBytes(of: state.littleEndian) { bytes.append(contentsOf: $0.prefix(count - bytes.count)) }
    }
    return bytes
}

/// A delta on `base` like those of an edited file: every 4 KiB block of the base copied in
/// order, with 8 new bytes inserted after each block.
func editDelta(base: [UInt8]) -> [UInt8] {
    func size(_ value: Int, into delta: inout [UInt8]) {
        var value = value
        repeat {
            let byte = UInt8(value & 0x7F)
            value >>= 7
            delta.append(value == 0 ? byte : byte | 0x80)
        } while value != 0
    }
    let block = 4096
    let blocks = (base.count + block - 1) / block
    var delta: [UInt8] = []
    size(base.count, into: &delta)
    size(base.count + blocks * 8, into: &delta)
    let inserted = pseudoRandomBytes(blocks * 8, seed: 42)
    for index in 0..<blocks {
        let offset = index * block
        let length = min(block, base.count - offset)
        // A copy with all four offset bytes and all three size bytes present.
        delta.append(0xFF)
        for shift in stride(from: 0, to: 32, by: 8) { delta.append(UInt8((offset >> shift) & 0xFF)) }
        for shift in stride(from: 0, to: 24, by: 8) { delta.append(UInt8((length >> shift) & 0xFF)) }
        delta.append(8)  // insert the next 8 bytes
        delta.append(contentsOf: inserted[(index * 8)..<(index * 8 + 8)])
    }
    return delta
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
        maxDuration: .seconds(2),
        maxIterations: 10_000
    )

    for (fixture, title) in [
        ("ls-remote/v0-many-refs.session", "v0 advertisement"),
        ("ls-remote/v2-many-refs.session", "v2 ls-refs response"),
    ] {
        let bytes = serverBytes(fixture)
        let decoded = try! packets(bytes)
        Benchmark("pkt-line decoding: \(title), \(decoded.count) packets, \(bytes.count) bytes") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try packets(bytes).count)
            }
        }
        if title == "v0 advertisement" {
            Benchmark("ref advertisement parsing (v0): \(decoded.count) packets") { benchmark in
                for _ in benchmark.scaledIterations {
                    var parser = RefAdvertisementParser()
                    var refs: [Ref] = []
                    for packet in decoded {
                        try parser.receive(packet) { refs.append($0) }
                        if parser.isDone { break }
                    }
                    blackHole(refs)
                }
            }
        }
    }

    let base = pseudoRandomBytes(1 << 20)
    let delta = editDelta(base: base)
    Benchmark(
        "delta application (Delta.apply): 1 MiB base, 256 copies and inserts",
        configuration: .init(scalingFactor: .one)
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try Delta.apply(delta[...], to: base[...]))
        }
    }

    let megabyte = pseudoRandomBytes(1 << 20, seed: 7)
    Benchmark("SHA-1 with collision detection (SHA1): 1 MiB") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try SHA1.hash(megabyte[...]))
        }
    }
    Benchmark("SHA-1 without detection (UncheckedSHA1): 1 MiB") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(UncheckedSHA1.hash(megabyte[...]))
        }
    }
    let small = pseudoRandomBytes(200, seed: 11)
    Benchmark(
        "SHA-1 with collision detection (SHA1): 200-byte messages",
        configuration: .init(scalingFactor: .kilo)
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try SHA1.hash(small[...]))
        }
    }
}
