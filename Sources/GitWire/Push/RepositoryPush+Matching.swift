import GitWireCore

/// How a push's refspecs meet the local and remote refs: git's `match_push_refs` (explicit
/// refspecs, globs, the matching refspec, negative refspecs) and `remote.<name>.push` mappings.
extension RepositoryPush {
    /// Whether an advertised name is one git's push keeps: `refs/` and a well-formed name of at
    /// least two levels after it (no control characters, `..`, `@{`, ...).
    static func isNormalRefName(_ name: [UInt8]) -> Bool {
        name.starts(with: "refs/".utf8) && RefNameFormat.isValid(name.dropFirst(5), allowOneLevel: false)
    }

    /// git's `refspec_append_mapped`: `<src>` alone (no `+`), naming exactly one local ref, goes
    /// where the first configured push refspec with a destination that matches that ref sends
    /// it (unless a configured negative refspec names the ref); else, for a branch in
    /// ``RepositoryPushOptions/upstreams``, to its upstream; otherwise it is unchanged.
    func mapped(_ spec: PushRefspec, localRefs: [RefRecord]) -> PushRefspec {
        guard !options.configuredRefspecs.isEmpty || !options.upstreams.isEmpty, !spec.force, !spec.isPattern,
            !spec.isMatching, !spec.isNegative, spec.destination == nil, let source = spec.source
        else { return spec }
        let found = Self.countMatches(source, names: localRefs.map(\.name))
        guard found.count == 1, let name = found.first else { return spec }
        if let configured = configuredMapping(name) { return configured }
        if let merge = options.upstreams[name] { return PushRefspec(source: source, destination: merge) }
        return spec
    }

    /// git's `query_refspecs` of the configured push refspecs for the local ref `name`.
    func configuredMapping(_ name: String) -> PushRefspec? {
        let configured = options.configuredRefspecs
        // git's query_matches_negative_refspec: the name is taken through each positive refspec
        // backwards (a pattern's destination side matched against it), and the names that gives
        // are checked against the negative ones.
        let negatives = configured.filter(\.isNegative)
        if !negatives.isEmpty {
            let reversed = configured.filter { !$0.isNegative }.compactMap { candidate -> String? in
                if candidate.isMatching { return name }
                guard let key = candidate.source else { return nil }
                if candidate.isPattern {
                    return PushRefspec.mapping(name, key: candidate.destination ?? key, value: key)
                }
                return key == name ? key : nil
            }
            if reversed.contains(where: { reversedName in negatives.contains { $0.excludes(reversedName) } }) {
                return nil
            }
        }
        for candidate in configured where !candidate.isNegative && !candidate.isMatching {
            guard let destination = candidate.destination, let key = candidate.source else { continue }
            let target =
                candidate.isPattern
                ? PushRefspec.mapping(name, key: key, value: destination) : (key == name ? destination : nil)
            if let target { return PushRefspec(source: name, destination: target, force: candidate.force) }
        }
        return nil
    }

    /// The updates the pattern refspecs and the matching refspec `:` (``RepositoryPushOptions/matching``
    /// too) add for the local refs, after the explicit ones (`matched`), as git's
    /// `match_push_refs` picks "the remainder": for each local ref in order, the first pattern
    /// whose source matches it decides its destination, else the matching refspec (a forced one
    /// first) sends a branch to the same name when the remote has it (or, with `--all` or
    /// `--mirror`, always). A destination something is already sent to is skipped.
    func remainder(
        specs: [PushRefspec], localRefs: [RefRecord], remoteNames: Set<String>, matched: [Match]
    ) -> [Match] {
        var patterns = specs.filter { ($0.isPattern || $0.isMatching) && !$0.isNegative }
        if options.matching { patterns.append(PushRefspec(matching: false)) }
        guard !patterns.isEmpty else { return [] }
        var taken = Set(matched.map(\.destination))
        var added: [Match] = []
        for ref in localRefs {
            var chosen: (spec: PushRefspec, name: String)?
            var matching: PushRefspec?
            for spec in patterns {
                if spec.isMatching {
                    if matching == nil || spec.force { matching = spec }
                    continue
                }
                guard let key = spec.source else { continue }
                if let name = PushRefspec.mapping(ref.name, key: key, value: spec.destination ?? key) {
                    chosen = (spec, name)
                    break
                }
            }
            if chosen == nil, let matching, options.mirror || ref.name.hasPrefix("refs/heads/") {
                chosen = (matching, ref.name)
            }
            guard let (spec, name) = chosen, !taken.contains(name) else { continue }
            if spec.isMatching && !remoteNames.contains(name) && !(options.all || options.mirror) { continue }
            taken.insert(name)
            added.append(Match(source: ref.name, sourceID: ref.id, destination: name, force: spec.force))
        }
        return added
    }

    /// git's `--prune` (`match_push_refs` with `MATCH_REFS_PRUNE`): each remote ref nothing is
    /// pushed to that a pattern refspec (or the matching refspec `:`, which `--all`, `--mirror`
    /// and `push.default=matching` mean) maps back to a local name no local ref has, deleted.
    /// The first pattern whose destination side matches decides; `:` covers only branches
    /// (every ref with `--mirror`). Refspecs without a pattern prune nothing.
    func pruned(specs: [PushRefspec], localRefs: [RefRecord], remoteRefs: [Ref], matched: [Match]) -> [Match] {
        var patterns = specs.filter { ($0.isPattern || $0.isMatching) && !$0.isNegative }
        if options.matching || options.all || options.mirror { patterns.append(PushRefspec(matching: false)) }
        guard !patterns.isEmpty else { return [] }
        let taken = Set(matched.map(\.destination))
        let localNames = Set(localRefs.map(\.name))
        var deleted: [Match] = []
        for ref in remoteRefs where !taken.contains(ref.name) {
            var source: String?
            var matching = false
            for spec in patterns {
                if spec.isMatching {
                    matching = true
                    continue
                }
                guard let key = spec.source else { continue }
                if let name = PushRefspec.mapping(ref.name, key: spec.destination ?? key, value: key) {
                    source = name
                    break
                }
            }
            if source == nil, matching, options.mirror || ref.name.hasPrefix("refs/heads/") { source = ref.name }
            guard let source, !localNames.contains(source) else { continue }
            deleted.append(Match(source: nil, sourceID: nil, destination: ref.name, force: false))
        }
        return deleted
    }

    /// What `spec` names on both sides; nil (with an error noted) when git would refuse it.
    func match(_ spec: PushRefspec, localRefs: [RefRecord], remoteRefs: [Ref]) throws -> Match? {
        var source: String?
        var sourceID: ObjectID?
        var sourceIsRef = false
        if let text = spec.source {
            let found = Self.countMatches(text, names: localRefs.map(\.name))
            if found.count > 1 {
                matchErrors.append("src refspec \(text) matches more than one")
                return nil
            }
            if let name = found.first {
                source = name
                sourceID = localRefs.first { $0.name == name }?.id
                sourceIsRef = true
            } else if text == "HEAD" || text == "@", let id = try resolveHead() {
                // git reads `@` as `HEAD`, and shows it so.
                source = "HEAD"
                sourceID = id
            } else if let id = try RevisionResolver(repository: repository, refs: localRefs).resolve(text) {
                source = text
                sourceID = id
            } else {
                matchErrors.append("src refspec \(text) does not match any")
                return nil
            }
        }
        var destination = spec.destination
        if destination == nil {
            guard let source else { return nil }
            if source == "HEAD" || source == "@" {
                guard case .symbolic(let target) = try repository.refs.head(), target.hasPrefix("refs/heads/") else {
                    throw PushRefspecError("\(source) cannot be resolved to branch", failsPush: false)
                }
                destination = target
            } else {
                destination = source
            }
        }
        let wanted = destination!
        let found = Self.countMatches(wanted, names: remoteRefs.map(\.name))
        if found.count > 1 {
            matchErrors.append("dst refspec \(wanted) matches more than one")
            return nil
        }
        if let name = found.first {
            return Match(source: source, sourceID: sourceID, destination: name, force: spec.force)
        }
        if wanted.hasPrefix("refs/") {
            return Match(source: source, sourceID: sourceID, destination: wanted, force: spec.force)
        }
        if sourceID == nil {
            matchErrors.append("unable to delete '\(wanted)': remote ref does not exist")
            return nil
        }
        if sourceIsRef, let source {
            if source.hasPrefix("refs/heads/") {
                return Match(source: source, sourceID: sourceID, destination: "refs/heads/\(wanted)", force: spec.force)
            }
            if source.hasPrefix("refs/tags/") {
                return Match(source: source, sourceID: sourceID, destination: "refs/tags/\(wanted)", force: spec.force)
            }
        }
        // git's advice (advice.pushUnqualifiedRefName) after the error: what the source's
        // object suggests.
        if let sourceID, let type = try repository.objects.objectType(sourceID) {
            let (kind, action, prefix) =
                switch type {
                case .commit: ("commit", "create a new branch", "refs/heads/")
                case .tag: ("tag", "create a new tag", "refs/tags/")
                case .tree: ("tree", "tag a new tree", "refs/tags/")
                case .blob: ("blob", "tag a new blob", "refs/tags/")
                }
            matchHints[matchErrors.count] = """
                The <src> part of the refspec is a \(kind) object.
                Did you mean to \(action) by pushing to
                '\(source ?? ""):\(prefix)\(wanted)'?
                """
        }
        matchErrors.append(
            """
            The destination you provided is not a full refname (i.e.,
            starting with "refs/"). We tried to guess what you meant by:

            - Looking for a ref that matches '\(wanted)' on the remote side.
            - Checking if the <src> being pushed ('\(source ?? "")')
              is a ref in "refs/{heads,tags}/". If so we add a corresponding
              refs/{heads,tags}/ prefix on the remote side.

            Neither worked, so we gave up. You must fully qualify the ref.
            """)
        return nil
    }

    func resolveHead() throws -> ObjectID? {
        switch try repository.refs.head() {
        case .detached(let id): return id
        case .symbolic(let target): return try repository.refs.resolve(target)
        }
    }

    /// The names `pattern` matches as git's `count_refspec_match` counts them: strong matches
    /// (under `refs/heads/` or `refs/tags/`, or any match of a pattern starting with `refs/`)
    /// win over weak ones.
    static func countMatches(_ pattern: String, names: [String]) -> [String] {
        let expansions = [
            pattern, "refs/\(pattern)", "refs/tags/\(pattern)", "refs/heads/\(pattern)", "refs/remotes/\(pattern)",
            "refs/remotes/\(pattern)/HEAD",
        ]
        var strong: [String] = []
        var weak: [String] = []
        for name in names where expansions.contains(name) {
            if !pattern.hasPrefix("refs/") && !name.hasPrefix("refs/heads/") && !name.hasPrefix("refs/tags/") {
                weak.append(name)
            } else {
                strong.append(name)
            }
        }
        return strong.isEmpty ? weak : strong
    }

    /// git's `REF_STATUS_*` number of a status its send-pack refuses to send (`remote.h`), nil
    /// for the others.
    static func gitRefusalStatus(_ status: PushRefResult.Status) -> Int? {
        switch status {
        case .rejected(.nonFastForward): return 2
        case .rejected(.alreadyExists): return 3
        case .deletionNotSupported: return 4
        case .rejected(.fetchFirst): return 5
        case .rejected(.needsForce): return 6
        case .rejected(.stale): return 7
        default: return nil
        }
    }
}
