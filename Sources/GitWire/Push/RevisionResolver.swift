/// Finds the object a ``RevisionExpression`` names in a repository, as git's `get_oid` does for
/// the forms push takes: the base is a ref found by git's rules (`<name>`, `refs/<name>`,
/// `refs/tags/<name>`, `refs/heads/<name>`, `refs/remotes/<name>`, `refs/remotes/<name>/HEAD`,
/// first found wins), `HEAD`/`@`, or an object id, whole or a unique abbreviation.
struct RevisionResolver {
    let repository: Repository
    let refs: [RefRecord]

    /// The object `text` names; nil when it names none (or several, for an abbreviation).
    func resolve(_ text: String) throws -> ObjectID? {
        guard let expression = RevisionExpression(text), var id = try base(expression) else { return nil }
        let graph = DatabaseCommitGraph(objects: repository.objects)
        for step in expression.steps {
            switch step {
            case .ancestor(let count):
                for _ in 0..<count {
                    guard let commit = try peel(id, to: .commit), let parent = graph.commit(commit)?.parents.first
                    else { return nil }
                    id = parent
                }
            case .parent(let number):
                guard let commit = try peel(id, to: .commit) else { return nil }
                if number == 0 {
                    id = commit
                } else {
                    guard let parents = graph.commit(commit)?.parents, number <= parents.count else { return nil }
                    id = parents[number - 1]
                }
            case .peel(let type):
                guard let peeled = try peel(id, to: type) else { return nil }
                id = peeled
            }
        }
        return id
    }

    private func base(_ expression: RevisionExpression) throws -> ObjectID? {
        let name = expression.base
        if name == "HEAD" || name == "@" {
            switch try repository.refs.head() {
            case .detached(let id): return id
            case .symbolic(let target): return try repository.refs.resolve(target)
            }
        }
        for candidate in [
            name, "refs/\(name)", "refs/tags/\(name)", "refs/heads/\(name)", "refs/remotes/\(name)",
            "refs/remotes/\(name)/HEAD",
        ] {
            if let record = refs.first(where: { $0.name == candidate }) { return record.id }
        }
        guard expression.baseIsHex else { return nil }
        let hex = name.lowercased()
        let format = repository.objects.format
        if hex.utf8.count == format.hexCount {
            guard let id = ObjectID(hex: hex.utf8, format: format), repository.objects.contains(id) else { return nil }
            return id
        }
        let found = try repository.objects.ids(withHexPrefix: hex, limit: 2)
        return found.count == 1 ? found[0] : nil
    }

    /// `id`, or what it leads to through tags (and, for a tree, from a commit): an object of
    /// `type` (nil: whatever the tags end at).
    private func peel(_ id: ObjectID, to type: ObjectType?) throws -> ObjectID? {
        var current = id
        for _ in 0..<ObjectWalk.longestTagChain {
            // The type from the header: only a tag, or a commit peeled to its tree, is read.
            guard let found = try repository.objects.objectType(current) else { return nil }
            if found == type || (type == nil && found != .tag) { return current }
            guard found == .tag || (found == .commit && type == .tree),
                let object = try repository.objects.object(current)
            else { return nil }
            let format = repository.objects.format
            switch object.type {
            case .tag:
                guard let target = try ObjectLinks.links(of: .tag, data: object.data, format: format).first else {
                    return nil
                }
                current = target.id
            case .commit where type == .tree:
                return try ObjectLinks.links(of: .commit, data: object.data, format: format).first?.id
            default:
                return nil
            }
        }
        return nil
    }
}

extension ObjectDatabase {
    /// Up to `limit` ids of stored objects whose hexadecimal form starts with `prefix` (lower
    /// case, at least two digits).
    func ids(withHexPrefix prefix: String, limit: Int) throws -> [ObjectID] {
        var found: Set<ObjectID> = []
        let wanted = Array(prefix.utf8)
        for pack in packs {
            let index = pack.index
            var low = partitionPoint(in: 0..<index.count) {
                index.id(at: $0).hexBytes.lexicographicallyPrecedes(wanted)
            }
            while low < index.count, found.count < limit, index.id(at: low).hexBytes.starts(with: wanted) {
                found.insert(index.id(at: low))
                low += 1
            }
        }
        let directory = "\(objectsDirectory)/\(prefix.prefix(2))"
        let names = (try? FileSystem.contents(ofDirectory: directory)) ?? []
        let rest = prefix.dropFirst(2)
        for name in names where name.hasPrefix(rest) && found.count < limit {
            if let id = ObjectID(String(prefix.prefix(2)) + name) { found.insert(id) }
        }
        return Array(found.prefix(limit))
    }
}

extension Repository {
    /// The object `revision` names (the forms of ``RevisionExpression``), nil when it names none.
    package func resolveRevision(_ revision: String) throws -> ObjectID? {
        try RevisionResolver(repository: self, refs: refs.all()).resolve(revision)
    }
}
