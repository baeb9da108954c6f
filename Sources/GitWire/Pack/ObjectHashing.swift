extension ObjectID {
    /// The name of an object of `type` with content `data`: SHA-1 over `<type> <size>\0` and
    /// `data`. Throws if the two carry a SHA-1 collision attack (see ``SHA1``).
    public static func of(type: ObjectType, data: ArraySlice<UInt8>) throws(SHA1CollisionError) -> ObjectID {
        var sha = SHA1()
        sha.update(type.header(size: data.count))
        sha.update(data)
        return try sha.finish()
    }
}

extension GitObject {
    /// The object's name: the SHA-1 of its header and content. Throws if they carry a SHA-1
    /// collision attack.
    public var id: ObjectID {
        get throws(SHA1CollisionError) { try ObjectID.of(type: type, data: data[...]) }
    }
}
