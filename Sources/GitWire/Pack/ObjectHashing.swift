extension ObjectID {
    /// The name of an object of `type` with content `data`: SHA-1 over `<type> <size>\0` and `data`.
    public static func of(type: ObjectType, data: ArraySlice<UInt8>) -> ObjectID {
        var sha = SHA1()
        sha.update(type.header(size: data.count))
        sha.update(data)
        return sha.finish()
    }
}

extension GitObject {
    /// The object's name: the SHA-1 of its header and content.
    public var id: ObjectID { ObjectID.of(type: type, data: data[...]) }
}
