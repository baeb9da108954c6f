/// Sorting of pack offsets in linear time (git sorts them the same way for its reverse index):
/// a least-significant-digit radix sort on 16-bit digits, with only as many passes as the largest
/// offset needs. A pack of 300,000 objects under 4 GiB takes two passes.
package enum OffsetSort {
    /// `values` in ascending order.
    package static func sorted(_ values: [UInt64]) -> [UInt64] {
        guard values.count > 64 else { return values.sorted() }
        let largest = values.max() ?? 0
        var source = values
        var target = [UInt64](repeating: 0, count: values.count)
        var shift: UInt64 = 0
        var counts = [Int](repeating: 0, count: 1 << 16)
        while shift < 64, largest >> shift != 0 {
            for index in counts.indices { counts[index] = 0 }
            for value in source { counts[Int((value >> shift) & 0xFFFF)] += 1 }
            var start = 0
            for index in counts.indices {
                let count = counts[index]
                counts[index] = start
                start += count
            }
            for value in source {
                let digit = Int((value >> shift) & 0xFFFF)
                target[counts[digit]] = value
                counts[digit] += 1
            }
            swap(&source, &target)
            shift += 16
        }
        return source
    }
}
