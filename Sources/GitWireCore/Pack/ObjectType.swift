/// The type of a git object, numbered as in a pack entry header.
public enum ObjectType: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    /// A commit.
    case commit = 1
    /// A tree.
    case tree = 2
    /// A blob.
    case blob = 3
    /// An annotated tag.
    case tag = 4

    /// The name git uses in object headers: `commit`, `tree`, `blob` or `tag`.
    public var name: String {
        switch self {
        case .commit: return "commit"
        case .tree: return "tree"
        case .blob: return "blob"
        case .tag: return "tag"
        }
    }

    /// The text shown to users and in logs.
    public var description: String { name }

    /// The type named `name` in an object header; nil for anything else.
    public init?<Name: Collection<UInt8>>(name: Name) {
        guard let type = ObjectType.allCases.first(where: { $0.name.utf8.elementsEqual(name) }) else { return nil }
        self = type
    }

    /// The header `<type> <size>\0` that precedes an object's content when it is hashed or stored loose.
    public func header(size: Int) -> [UInt8] { Array("\(name) \(size)\0".utf8) }
}

/// A git object: its type and content.
public struct GitObject: Equatable, Sendable {
    /// The object's type.
    public var type: ObjectType
    /// The object's content, without the `<type> <size>\0` header.
    public var data: [UInt8]

    /// Makes an object of `type` with `data`.
    public init(type: ObjectType, data: [UInt8]) {
        self.type = type
        self.data = data
    }
}

/// Somewhere objects can be read by name, such as a repository's object database. Supplies the
/// bases a thin pack leaves out.
public protocol ObjectSource {
    /// The object named `id`, or nil if this source does not have it.
    func object(_ id: ObjectID) throws -> GitObject?
}
