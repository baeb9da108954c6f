/// The first position in `range` at which `isBefore` is false, by binary search, for a predicate
/// that is true for a prefix of `range` and false from there on (in a sorted table, "comes before
/// the key"): where the key is or would be inserted, `range.upperBound` when everything comes
/// before it. Calls `isBefore` about log2(`range.count`) times.
///
/// The one binary search of the package: pack indexes, entry tables, delta plans and the
/// negotiator's date-ordered list all find their place with it. Inlinable, so each caller's
/// predicate is compiled into the loop.
@inlinable
package func partitionPoint(in range: Range<Int>, where isBefore: (Int) throws -> Bool) rethrows -> Int {
    var low = range.lowerBound
    var high = range.upperBound
    while low < high {
        let middle = low &+ (high &- low) >> 1
        if try isBefore(middle) { low = middle &+ 1 } else { high = middle }
    }
    return low
}
