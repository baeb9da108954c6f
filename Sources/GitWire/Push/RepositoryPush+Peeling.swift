extension RepositoryPush {
    /// The commit `id` is or names through tags; types come from headers, so only tags are read.
    func peeledCommit(_ id: ObjectID) throws -> ObjectID? {
        var current = id
        for _ in 0..<ObjectWalk.longestTagChain {
            switch try repository.objects.objectType(current) {
            case .commit: return current
            case .tag:
                guard let object = try repository.objects.object(current),
                    let target = try ObjectLinks.links(of: .tag, data: object.data, format: repository.objects.format)
                        .first
                else { return nil }
                current = target.id
            case .tree, .blob, nil: return nil
            }
        }
        return nil
    }
}
