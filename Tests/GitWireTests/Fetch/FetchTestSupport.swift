import Foundation
import GitWire
import GitWireReplay
import GitWireTestSupport
import Testing

/// A ``CommitGraph`` over a table of commits: what a local repository holds.
struct TableCommitGraph: CommitGraph {
    var commits: [ObjectID: CommitSummary] = [:]

    func commit(_ id: ObjectID) -> CommitSummary? { commits[id] }

    /// The part of the graph reachable from `tips`: a repository whose refs are `tips`.
    func reachable(from tips: [ObjectID]) -> TableCommitGraph {
        var result = TableCommitGraph()
        var stack = tips
        while let id = stack.popLast() {
            guard result.commits[id] == nil, let commit = commits[id] else { continue }
            result.commits[id] = commit
            stack += commit.parents
        }
        return result
    }
}

/// Parses a commit object's `parent` lines (ids of `format`) and committer time.
func commitSummary(_ data: [UInt8], format: ObjectFormat = .sha1) throws -> CommitSummary {
    let headerEnd = data.firstRange(of: [0x0a, 0x0a])?.lowerBound ?? data.count
    var parents: [ObjectID] = []
    var time: Int64?
    for line in data[..<headerEnd].split(separator: 0x0a) {
        if line.starts(with: "parent ".utf8) {
            guard let id = ObjectID(hex: line.dropFirst(7), format: format) else {
                throw FetchTestProblem("bad parent line")
            }
            parents.append(id)
        } else if line.starts(with: "committer ".utf8) {
            // committer Name <email> <time> <zone>
            let fields = line.split(separator: 0x20)
            guard fields.count >= 2, let value = Int64(String(decoding: fields[fields.count - 2], as: UTF8.self))
            else { throw FetchTestProblem("bad committer line") }
            time = value
        }
    }
    guard let time else { throw FetchTestProblem("commit without committer") }
    return CommitSummary(parents: parents, committerTime: time)
}

struct FetchTestProblem: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A pack received by a fetch, indexed with ``PackIndexer`` and open for reading.
struct IndexedPack {
    let result: PackIndexResult
    let reader: PackReader

    /// Indexes `bytes` (a pack of `format`) in `directory` (as one file `name.pack`), completing a
    /// thin pack from `bases`.
    init(
        _ bytes: [UInt8], in directory: TemporaryDirectory, name: String, bases: (any ObjectSource)? = nil,
        format: ObjectFormat = .sha1
    ) throws {
        let indexer = try PackIndexer(
            destination: .file(directory.appending("\(name).pack")), options: PackIndexOptions(objectFormat: format))
        // In the odd chunks a network delivers them in.
        var start = 0
        while start < bytes.count {
            let end = min(start + 1000 + start % 7, bytes.count)
            try indexer.append(bytes[start..<end])
            start = end
        }
        result = try indexer.finish(externalBases: bases)
        reader = try PackReader(packPath: result.packPath, indexPath: result.indexPath, format: format)
    }

    /// Every object id in the pack.
    var ids: Set<ObjectID> { Set((0..<reader.index.count).map(reader.index.id(at:))) }

    /// The commits in the pack.
    func commitGraph() throws -> TableCommitGraph {
        var graph = TableCommitGraph()
        for id in ids {
            guard let object = try reader.object(id), object.type == .commit else { continue }
            graph.commits[id] = try commitSummary(object.data, format: reader.index.format)
        }
        return graph
    }
}

/// The ids of every object reachable from `tips` (commits, trees, blobs, tags) in `source`,
/// stopping at commits whose parents `source` lacks (a shallow boundary) and at `depth` commits.
/// The objects are of the tips' format.
func reachableObjects(from tips: [ObjectID], in source: any ObjectSource, depth: Int? = nil) throws -> Set<ObjectID> {
    let format = tips.first?.format ?? .sha1
    let width = format.byteCount
    var seen: Set<ObjectID> = []
    var stack: [(ObjectID, Int)] = tips.map { ($0, 1) }
    while let (id, level) = stack.popLast() {
        guard !seen.contains(id), let object = try source.object(id) else { continue }
        seen.insert(id)
        switch object.type {
        case .commit:
            let headerEnd = object.data.firstRange(of: [0x0a, 0x0a])?.lowerBound ?? object.data.count
            for line in object.data[..<headerEnd].split(separator: 0x0a) {
                if line.starts(with: "tree ".utf8), let tree = ObjectID(hex: line.dropFirst(5), format: format) {
                    stack.append((tree, level))
                } else if line.starts(with: "parent ".utf8),
                    let parent = ObjectID(hex: line.dropFirst(7), format: format)
                {
                    if depth.map({ level < $0 }) ?? true { stack.append((parent, level + 1)) }
                }
            }
        case .tag:
            if let line = object.data.split(separator: 0x0a).first, line.starts(with: "object ".utf8),
                let target = ObjectID(hex: line.dropFirst(7), format: format)
            {
                stack.append((target, level))
            }
        case .tree:
            var rest = object.data[...]
            while let nul = rest.firstIndex(of: 0), rest.distance(from: nul, to: rest.endIndex) > width {
                let entry = rest[rest.startIndex..<nul]
                let child = ObjectID(bytes: Array(rest[(nul + 1)..<(nul + 1 + width)]), format: format)
                // Submodule entries (mode 160000) name commits of another repository.
                if let child, !entry.starts(with: "160000 ".utf8) { stack.append((child, level)) }
                rest = rest[(nul + 1 + width)...]
            }
        case .blob:
            break
        }
    }
    return seen
}

/// A recorded fetch fixture, with what git sent in it: `Fixtures/fetch/<name>.session`, or for
/// a name with a folder (`sha256/fetch/v0-clone`) `Fixtures/<name>.session`.
struct FetchFixture: CustomTestStringConvertible, Sendable {
    let name: String
    let path: String
    let session: Session

    init(_ name: String) throws {
        self.name = name
        path =
            name.contains("/") ? "\(fixturesDirectory)/\(name).session" : "\(fixturesDirectory)/fetch/\(name).session"
        session = try Session(contentsOfFile: path)
    }

    /// The object format of the recorded repository (the SHA-256 ones are under `sha256/`).
    var format: ObjectFormat { name.hasPrefix("sha256/") ? .sha256 : .sha1 }

    var testDescription: String { name }

    var protocolVersion: ProtocolVersion { session.protocolVersion }

    /// The `agent=` value git sent, read from the client's packets.
    func clientAgent() throws -> String {
        for packet in try DecodedFetch(session).clientPackets {
            guard let text = packet.text, let range = text.range(of: "agent=") else { continue }
            return String(text[range.upperBound...].prefix { $0 != " " && $0 != "\n" })
        }
        throw FetchTestProblem("\(name): the client sent no agent")
    }

    /// Replays the session through ``Remote/run(_:service:protocolVersion:traceIdentity:onElement:)``.
    func replay(_ exchange: FetchExchange, chunking: ReplayChunking = .whole) throws -> (FetchOutcome, FetchEvents) {
        let replay = ReplayTransport(session, chunking: chunking)
        let remote = Remote(url: try RemoteURL("git://127.0.0.1\(session.path)"), transport: replay)
        var events = FetchEvents()
        let outcome = try remote.runBlocking(exchange, protocolVersion: protocolVersion, traceIdentity: "fetch") {
            events.add($0)
        }
        try replay.verify()
        return (outcome, events)
    }
}

/// The events of one fetch, collected by kind.
struct FetchEvents {
    var refs: [Ref] = []
    var pack: [UInt8] = []
    var packChunks = 0
    var progress: [UInt8] = []
    var shallow: [ObjectID] = []
    var unshallow: [ObjectID] = []
    var warnings: [String] = []

    mutating func add(_ event: FetchEvent) {
        switch event {
        case .ref(let ref): refs.append(ref)
        case .packData(let bytes):
            pack += bytes
            packChunks += 1
        case .progress(let bytes): progress += bytes
        case .shallow(let id): shallow.append(id)
        case .unshallow(let id): unshallow.append(id)
        case .warning(let text): warnings.append(text)
        }
    }

    /// The `N` of the server's "Total N" progress line, if it sent one.
    var totalFromProgress: Int? {
        let text = String(decoding: progress, as: UTF8.self)
        guard let range = text.range(of: "Total ") else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }
}

/// What `git clone` wants: every branch and tag, and `HEAD`, in the order of their names (git
/// sorts the refs it fetches by name), one `want` per ref even when ids repeat.
@Sendable func cloneWants(_ listing: RefListing) -> [ObjectID] {
    listing.refs.filter { $0.name == "HEAD" || $0.name.hasPrefix("refs/heads/") || $0.name.hasPrefix("refs/tags/") }
        .sorted { $0.nameBytes.lexicographicallyPrecedes($1.nameBytes) }.compactMap(\.objectID)
}

/// What a single-branch clone of `HEAD` wants (`git clone --depth`): `HEAD` and the branch it
/// names.
@Sendable func singleBranchWants(_ listing: RefListing) -> [ObjectID] {
    let head = listing.refs.first { $0.name == "HEAD" }
    let branch = head?.symrefTarget.flatMap { target in listing.refs.first { $0.name == target } }
    return [head, branch].compactMap { $0?.objectID }
}

/// What `git fetch <url> +refs/heads/*:refs/heads/* +refs/tags/*:refs/tags/*` wants.
@Sendable func branchesAndTagsWants(_ listing: RefListing) -> [ObjectID] {
    listing.refs.filter { $0.name.hasPrefix("refs/heads/") || $0.name.hasPrefix("refs/tags/") }
        .sorted { $0.nameBytes.lexicographicallyPrecedes($1.nameBytes) }.compactMap(\.objectID)
}

/// An empty local repository.
struct EmptyCommitGraph: CommitGraph {
    func commit(_ id: ObjectID) -> CommitSummary? { nil }
}
