/// Records, while a pack is indexed, every object its commits, trees and tags name, so that a
/// fetch can check the pack's connectivity without reading the pack a second time (as git's
/// `index-pack --check-self-contained-and-connected` does). Shared by the threads that resolve
/// deltas; each hands over its links in batches.
package final class LinkCollector: Sendable {
    private let referenced = Locked(ObjectIDSet())
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
    static func empty(_ batch: inout [ObjectID]) {
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

    /// Adds the links of the object `id` of `type` with content `data` to `batch`.
    func collect(type: ObjectType, id: ObjectID, data: [UInt8], into batch: inout [ObjectID]) {
        guard type != .blob else { return }
        do {
            for link in try ObjectLinks.links(of: type, data: data, format: format) {
                if link.type == .commit && type == .commit && shallow.contains(id) { continue }
                if contentMayBeMissing && (link.type == .tree || link.type == .blob) { continue }
                batch.append(link.id)
            }
        } catch {
            let problem = FetchError(.pack, "malformed \(type) \(id.hex): \(error)")
            failure.withLock { if $0 == nil { $0 = problem } }
        }
    }

    /// Hands a batch over.
    func record(_ batch: [ObjectID]) {
        guard !batch.isEmpty else { return }
        referenced.withLock { referenced in referenced.formUnion(batch) }
    }

    /// Every object named so far; throws if an object's links could not be read.
    package func takeReferenced() throws -> ObjectIDSet {
        if let error = failure.withLock({ $0 }) { throw error }
        return referenced.withLock { referenced in
            var taken = ObjectIDSet()
            swap(&taken, &referenced)
            return taken
        }
    }
}
