/// One ref of a local repository: its name, the object it names and, for an annotated tag, the
/// object the tag peels to (as `packed-refs` records it).
public struct RefRecord: Hashable, Sendable {
    /// The full name, such as `refs/heads/main`.
    public var name: String
    /// The object the ref names.
    public var id: ObjectID
    /// What an annotated tag peels to; nil for other refs or when not known.
    public var peeled: ObjectID?

    /// A record of `name` at `id`, peeling to `peeled`.
    public init(name: String, id: ObjectID, peeled: ObjectID? = nil) {
        self.name = name
        self.id = id
        self.peeled = peeled
    }
}

/// Where a repository's `HEAD` points.
public enum HeadState: Hashable, Sendable {
    /// A symbolic ref to this branch (which may not exist yet: an unborn branch).
    case symbolic(String)
    /// An object id (a detached `HEAD`).
    case detached(ObjectID)
}
