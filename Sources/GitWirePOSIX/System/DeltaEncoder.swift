import CGitWire

/// Makes git deltas against one source (`cgw_delta_create`): the source is indexed once, then
/// any number of targets are encoded against it. Not thread-safe; one per thread.
package final class DeltaSource {
    private let bytes: UnsafeMutableBufferPointer<UInt8>
    private let index: OpaquePointer?
    /// Memory held by the copy of the source and its index.
    package let memory: Int

    /// Indexes a copy of `source`.
    package init(_ source: [UInt8]) {
        bytes = UnsafeMutableBufferPointer.allocate(capacity: max(1, source.count))
        _ = bytes.initialize(from: source)
        let slice = UnsafeMutableBufferPointer(rebasing: bytes[0..<source.count])
        index = cgw_delta_index_new(slice.baseAddress, source.count)
        memory = source.count + (index.map { cgw_delta_index_size($0) } ?? 0)
    }

    deinit {
        cgw_delta_index_free(index)
        bytes.deallocate()
    }

    /// The delta that makes `target` from the source, if one of at most `maximumSize` bytes
    /// exists this way.
    package func delta(to target: [UInt8], maximumSize: Int) -> [UInt8]? {
        guard let index, maximumSize > 0 else { return nil }
        var length = 0
        let output = [UInt8](unsafeUninitializedCapacity: maximumSize) { buffer, initialized in
            length = target.withUnsafeBufferPointer { target in
                cgw_delta_create(index, target.baseAddress, target.count, buffer.baseAddress, maximumSize)
            }
            initialized = length
        }
        return length > 0 ? output : nil
    }
}
