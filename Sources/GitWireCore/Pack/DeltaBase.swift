/// Where a delta says its base is.
public enum DeltaBase: Equatable, Sendable, CustomStringConvertible {
    /// An offset delta's base: the entry at this pack offset.
    case offset(UInt64)
    /// A reference delta's base: the object with this name.
    case id(ObjectID)

    /// The text shown to users and in logs.
    public var description: String {
        switch self {
        case .offset(let offset): return "ofs-delta to offset \(offset)"
        case .id(let id): return "ref-delta to \(id)"
        }
    }
}
