/// Records, while a pack is indexed, every object its commits, trees and tags name, so that a
/// fetch can check the pack's connectivity without reading the pack a second time (as git's
/// `index-pack --check-self-contained-and-connected` does). Shared by the threads that resolve
/// deltas; each hands over its links in batches.
package final class LinkCollector: Sendable {
    private let referenced = Locked(ObjectIDFlags())
    private let failure = Locked<(any Error)?>(nil)
    /// Commits whose parents are not to be had (shallow boundaries).
    private let shallow: Set<ObjectID>
    /// A partial clone: only commits' parents and tags' targets must be present.
    private let contentMayBeMissing: Bool
    /// The format of the ids objects hold.
    private let format: ObjectFormat

    /// The links a thread gathers before it hands them over (``record(_:)``). A batch grows past it
    /// by the links of one object (a large tree's), and its array doubles as it does: at 4,096 the
    /// batches of a clone's three threads held 0.6 MiB at the peak.
    static let batchCount = 1024

    /// Empties a batch once it was handed over, keeping its room unless the links of one object
    /// (a large tree's) made it grow past twice ``batchCount``: kept, that room stayed with each
    /// thread to the end (0.98 MB of batches in the heap at the peak of swift-nio's clone, whose
    /// peak heap is 0.2 MB lower without it).
    static func empty(_ batch: inout LinkBatch) {
        batch.removeAll(keepingCapacity: batch.capacity <= 2 * batchCount)
    }

    /// A collector of the links of objects named in `format`, that ignores the parents of
    /// `shallow` commits, and the trees and blobs a partial clone may leave out when
    /// `contentMayBeMissing`.
    package init(shallow: Set<ObjectID>, contentMayBeMissing: Bool, format: ObjectFormat = .sha1) {
        self.format = format
        self.shallow = shallow
        self.contentMayBeMissing = contentMayBeMissing
    }

    /// Adds the links of the object `id` of `type` with content `data` to `batch`, and, for an
    /// object that is not a blob, its type.
    func collect(type: ObjectType, id: ObjectID, data: [UInt8], into batch: inout LinkBatch) {
        guard type != .blob else { return }
        batch.append(id, flags: LinkFlags.isA(type))
        do {
            for link in try ObjectLinks.links(of: type, data: data, format: format) {
                if link.type == .commit && type == .commit && shallow.contains(id) { continue }
                if contentMayBeMissing && (link.type == .tree || link.type == .blob) { continue }
                batch.append(link.id, flags: LinkFlags.namedAs(link.type))
            }
        } catch {
            let problem = FetchError(.pack, "malformed \(type) \(id.hex): \(error)")
            failure.withLock { if $0 == nil { $0 = problem } }
        }
    }

    /// Hands a batch over.
    func record(_ batch: LinkBatch) {
        guard !batch.isEmpty else { return }
        referenced.withLock { referenced in referenced.insert(batch.ids, flags: batch.flags) }
    }

    /// Every object named so far, and every object collected that is not a blob, with
    /// ``LinkFlags``; throws if an object's links could not be read.
    package func takeReferenced() throws -> ObjectIDFlags {
        if let error = failure.withLock({ $0 }) { throw error }
        return referenced.withLock { referenced in
            var taken = ObjectIDFlags()
            swap(&taken, &referenced)
            return taken
        }
    }
}

/// What the ``LinkCollector`` notes of an object: the types it was named as (by a commit's
/// `tree` and `parent` lines, a tree's entry modes, a tag's `type` line), in the low four bits,
/// and, for an object the pack holds that is not a blob, its type, in the high four.
package enum LinkFlags {
    /// The bit of an object named as a `type`.
    package static func namedAs(_ type: ObjectType) -> UInt8 {
        switch type {
        case .commit: return 1
        case .tree: return 2
        case .blob: return 4
        case .tag: return 8
        }
    }

    /// The bit of an object that is a `type`.
    package static func isA(_ type: ObjectType) -> UInt8 { namedAs(type) << 4 }

    /// The types of `flags`' bits (`flags` shifted right by four for those of what it is).
    package static func types(_ flags: UInt8) -> [ObjectType] {
        [ObjectType.commit, .tree, .blob, .tag].filter { flags & namedAs($0) != 0 }
    }
}

/// The links a resolving thread gathers before handing them to the ``LinkCollector`` at once.
struct LinkBatch: ExpressibleByArrayLiteral {
    private(set) var ids: [ObjectID] = []
    private(set) var flags: [UInt8] = []

    /// An empty batch.
    init(arrayLiteral elements: Never...) {}

    /// The number of names in the batch.
    var count: Int { ids.count }

    /// Whether the batch is empty.
    var isEmpty: Bool { ids.isEmpty }

    /// The number of names the batch has room for.
    var capacity: Int { ids.capacity }

    /// Adds `id` with `flags`.
    mutating func append(_ id: ObjectID, flags: UInt8) {
        ids.append(id)
        self.flags.append(flags)
    }

    /// Empties the batch.
    mutating func removeAll(keepingCapacity: Bool = false) {
        ids.removeAll(keepingCapacity: keepingCapacity)
        flags.removeAll(keepingCapacity: keepingCapacity)
    }
}
