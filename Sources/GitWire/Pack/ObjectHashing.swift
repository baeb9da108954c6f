extension ObjectID {
    /// The name of an object of `type` with content `data` in `format`: the hash of
    /// `<type> <size>\0` and `data`. Throws if the two carry a SHA-1 collision attack (see ``SHA1``).
    public static func of(type: ObjectType, data: ArraySlice<UInt8>, format: ObjectFormat) throws(SHA1CollisionError)
        -> ObjectID
    {
        var hasher = ObjectHasher(format)
        hasher.update(type.header(size: data.count))
        hasher.update(data)
        return try hasher.finish()
    }
}

extension GitObject {
    /// The object's name in `format`: the hash of its header and content. Throws if they carry a
    /// SHA-1 collision attack.
    public func id(_ format: ObjectFormat) throws(SHA1CollisionError) -> ObjectID {
        try ObjectID.of(type: type, data: data[...], format: format)
    }
}
