import Benchmark
import Foundation
import GitWire

#if canImport(Glibc)
    import Glibc
#endif

// In-process benchmarks of what every listing, clone and fetch goes through, on inputs captured
// from a real repository by Tools/bench-micro-inputs.py (Tools/bench-micro.sh makes them and runs
// this): pkt-line decoding with side-band of a whole fetch response, the ref advertisement of
// protocol v0 and the ls-refs answer of v2, delta application in Swift and in C, and object
// naming with SHA-1 (collision detection), its batch path and SHA-256.
//
// Each iteration does the whole job once (one response decoded, every delta applied, every blob
// named). A name ends in `[<bytes> B]`, the bytes one iteration handles, from which
// Tools/bench-micro.sh computes MB/s; the malloc counts are per job.

/// The CPU time of one iteration, in nanoseconds: package-benchmark's own CPU metrics come from the
/// process's clock ticks (10 ms here), too coarse for iterations of a few milliseconds, and on a
/// loaded machine the wall time says more about the other processes than about the parser.
let threadCPU = BenchmarkMetric.custom("CPU time of the thread (ns)")

/// The CPU time the calling thread has used so far, in nanoseconds.
func threadCPUNanoseconds() -> Int {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return time.tv_sec * 1_000_000_000 + time.tv_nsec
}

/// Runs `body` once for each of the benchmark's iterations and records the thread's CPU time.
func measure(_ benchmark: Benchmark, _ body: () throws -> Void) rethrows {
    let start = threadCPUNanoseconds()
    for _ in benchmark.scaledIterations { try body() }
    benchmark.measurement(threadCPU, threadCPUNanoseconds() - start)
}

/// The folder of the captured inputs: GITWIRE_BENCH_INPUTS, which Tools/bench-micro.sh sets.
let inputs: String = {
    guard let folder = ProcessInfo.processInfo.environment["GITWIRE_BENCH_INPUTS"] else {
        fatalError("GITWIRE_BENCH_INPUTS is not set: run Tools/bench-micro.sh, which makes the inputs")
    }
    return folder
}()

/// The bytes of the input file `name`.
func input(_ name: String) -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: "\(inputs)/\(name)") else {
        fatalError("cannot read \(inputs)/\(name): run Tools/bench-micro.sh, which makes the inputs")
    }
    return [UInt8](data)
}

/// `bytes` cut into reads of 64 KiB, each an array of its own, as a transport hands them over.
func reads(_ bytes: [UInt8], size: Int = 1 << 16) -> [[UInt8]] {
    stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) }
}

/// The little-endian 64-bit size at `offset`.
func size(_ bytes: [UInt8], at offset: Int) -> Int {
    (0..<8).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
}

/// The records of a file of `<u64 size><bytes>` records.
func records(_ bytes: [UInt8]) -> [[UInt8]] {
    var records: [[UInt8]] = []
    var offset = 0
    while offset < bytes.count {
        let count = size(bytes, at: offset)
        records.append(Array(bytes[(offset + 8)..<(offset + 8 + count)]))
        offset += 8 + count
    }
    return records
}

/// The name of a benchmark that handles `bytes` bytes an iteration.
func name(_ title: String, bytes: Int) -> String { "\(title) [\(bytes) B]" }

/// Pack bytes in a fetch response, decoded as the fetch does: pkt-line views of 64 KiB reads,
/// the section headers skipped, then every packet of the packfile section through the
/// side-band demultiplexer.
func demultiplex(_ chunks: [[UInt8]]) throws -> Int {
    var decoder = PktLineDecoder()
    var sideBand = SideBandDemultiplexer()
    var inPack = false
    let packfile = Array("packfile\n".utf8)
    for chunk in chunks {
        decoder.append(chunk)
        while let packet = try decoder.nextView() {
            guard inPack else {
                if case .data(let payload) = packet, payload.elementsEqual(packfile) { inPack = true }
                continue
            }
            if case .end = try sideBand.receive(view: packet) { return sideBand.dataByteCount }
        }
    }
    return sideBand.dataByteCount
}

/// The refs a client lists from `chunks` (the server's half of an ls-remote), through the codec
/// and exchange every transport uses.
func listRefs(_ chunks: [[UInt8]], version: ProtocolVersion) throws -> Int {
    var codec = ExchangeCodec(LsRemoteExchange(options: LsRemoteOptions(protocolVersion: version)))
    _ = try codec.opening(greeting: [], context: ExchangeContext(connectionPersists: false))
    var count = 0
    for chunk in chunks where codec.output == nil {
        _ = try codec.receive(chunk) { _ in count += 1 }
    }
    guard let listing = codec.output, listing.refs.count == count else {
        fatalError("the listing did not end where the capture does")
    }
    return count
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        // No ARC counts (`.retainCount`): on Linux with Swift 6.3 the runtime's retain hooks crash
        // the process unless package-benchmark preloads ordo-one's swift-runtime-interposer, which
        // the package mirror here does not have.
        metrics: [.wallClock, threadCPU, .throughput, .mallocCountTotal],
        warmupIterations: 2,
        maxDuration: .seconds(3),
        maxIterations: 1_000
    )

    // Pkt-lines and side-band: the whole answer of upload-pack to a shallow clone.
    let fetch = input("fetch-sideband.bin")
    let fetchReads = reads(fetch)
    let packBytes = try! demultiplex(fetchReads)
    Benchmark(name("pkt-line views + side-band: v2 fetch response, \(packBytes)-byte pack", bytes: fetch.count)) {
        benchmark in
        try measure(benchmark) { blackHole(try demultiplex(fetchReads)) }
    }
    Benchmark(name("pkt-line owned packets (next()): the same response", bytes: fetch.count)) { benchmark in
        try measure(benchmark) {
            var decoder = PktLineDecoder()
            var count = 0
            for chunk in fetchReads {
                decoder.append(chunk)
                while let packet = try decoder.next() { count += packet.payload?.count ?? 0 }
            }
            blackHole(count)
        }
    }

    // Ref advertisements: the listing a client makes, decoding included.
    for (file, version, title) in [
        ("v0-advertisement.bin", ProtocolVersion.v0, "v0 ref advertisement"),
        ("v2-ls-refs.bin", ProtocolVersion.v2, "v2 capabilities + ls-refs answer"),
    ] {
        let bytes = input(file)
        let chunks = reads(bytes)
        let refs = try! listRefs(chunks, version: version)
        Benchmark(name("ls-remote exchange: \(title), \(refs) refs", bytes: bytes.count)) { benchmark in
            try measure(benchmark) { blackHole(try listRefs(chunks, version: version)) }
        }
    }

    // Delta application: every delta of a range of history, with its base.
    let deltaRecords = records(input("deltas.bin"))
    let pairs = stride(from: 0, to: deltaRecords.count, by: 2).map {
        (base: deltaRecords[$0], delta: deltaRecords[$0 + 1])
    }
    let resultBytes = pairs.reduce(0) { $0 + Int(try! Delta.header($1.delta[...]).resultSize) }
    let deltaTitle = "\(pairs.count) deltas of git.git, \(resultBytes) bytes made"
    Benchmark(name("delta application, Swift (Delta.apply): \(deltaTitle)", bytes: resultBytes)) { benchmark in
        try measure(benchmark) {
            for pair in pairs { blackHole(try Delta.apply(pair.delta[...], to: pair.base[...])) }
        }
    }
    Benchmark(name("delta application, C (Delta.applyNative): \(deltaTitle)", bytes: resultBytes)) { benchmark in
        try measure(benchmark) {
            for pair in pairs { blackHole(try Delta.applyNative(pair.delta[...], to: pair.base[...])) }
        }
    }

    // Hashing: the pack's checksum (one long stream), and the blobs of a checkout named as objects.
    let pack = input("objects.pack")
    Benchmark(name("SHA-1 with collision detection (SHA1), one stream: the pack", bytes: pack.count)) { benchmark in
        try measure(benchmark) { blackHole(try SHA1.hash(pack[...])) }
    }
    Benchmark(name("SHA-1 without detection (UncheckedSHA1), one stream: the pack", bytes: pack.count)) { benchmark in
        measure(benchmark) { blackHole(UncheckedSHA1.hash(pack[...])) }
    }
    Benchmark(name("SHA-256, one stream: the pack", bytes: pack.count)) { benchmark in
        measure(benchmark) { blackHole(SHA256.hash(pack[...])) }
    }
    let blobs = records(input("objects.bin"))
    let blobBytes = blobs.reduce(0) { $0 + $1.count }
    let blobTitle = "\(blobs.count) blobs of a git.git checkout"
    Benchmark(name("object ids, SHA-1DC one at a time (ObjectID.of): \(blobTitle)", bytes: blobBytes)) { benchmark in
        try measure(benchmark) {
            for blob in blobs { blackHole(try ObjectID.of(type: .blob, data: blob[...], format: .sha1)) }
        }
    }
    Benchmark(name("object ids, SHA-1DC batch (ObjectHashBatch): \(blobTitle)", bytes: blobBytes)) { benchmark in
        measure(benchmark) {
            var batch = ObjectHashBatch(format: .sha1)
            for blob in blobs { batch.append(type: .blob, data: blob) }
            blackHole(batch.hashAll())
        }
    }
    Benchmark(name("object ids, SHA-256 one at a time (ObjectID.of): \(blobTitle)", bytes: blobBytes)) { benchmark in
        try measure(benchmark) {
            for blob in blobs { blackHole(try ObjectID.of(type: .blob, data: blob[...], format: .sha256)) }
        }
    }
}
