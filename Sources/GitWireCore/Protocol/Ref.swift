/// A ref as a server advertises it.
public struct Ref: Hashable, Sendable, CustomStringConvertible {
    /// The ref's name exactly as sent (git allows bytes that are not UTF-8).
    public let nameBytes: [UInt8]
    /// The object the ref points at; nil for an unborn ref (a symref to a branch with no commit).
    public var objectID: ObjectID?
    /// What an annotated tag finally points at (`^{}`), when the server said.
    public var peeled: ObjectID?
    /// The ref a symbolic ref points at, such as `refs/heads/main` for `HEAD`.
    public var symrefTarget: String?

    /// Makes a ref.
    public init(name: [UInt8], objectID: ObjectID?, peeled: ObjectID? = nil, symrefTarget: String? = nil) {
        self.nameBytes = name
        self.objectID = objectID
        self.peeled = peeled
        self.symrefTarget = symrefTarget
    }

    /// Makes a ref.
    public init(name: String, objectID: ObjectID?, peeled: ObjectID? = nil, symrefTarget: String? = nil) {
        self.init(name: Array(name.utf8), objectID: objectID, peeled: peeled, symrefTarget: symrefTarget)
    }

    /// The ref's name as text.
    public var name: String { String(decoding: nameBytes, as: UTF8.self) }

    /// Whether the ref has no object yet (an unborn `HEAD`).
    public var isUnborn: Bool { objectID == nil }

    /// The text shown to users and in logs.
    public var description: String {
        var text = "\(objectID?.hex ?? "unborn") \(name)"
        if let peeled { text += " peeled:\(peeled.hex)" }
        if let symrefTarget { text += " symref-target:\(symrefTarget)" }
        return text
    }
}
