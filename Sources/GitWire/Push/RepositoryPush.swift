/// One push from a local repository: decides each ref's update from the remote's advertisement
/// as git's `send-pack` does, makes the pack, and turns the server's report into results.
/// Used by every form of ``Remote/pushBlocking(from:updates:options:progress:)``; runs on the loop's
/// thread.
final class RepositoryPush: @unchecked Sendable {
    let repository: Repository
    let refspecs: [PushRefspec]
    let options: RepositoryPushOptions
    let progress: FetchProgressHandler?
    /// Results so far, in git's order; filled by ``plan(_:)``.
    var results: [PushRefResult] = []
    var commands: [PushCommand] = []
    var localRejection = false
    /// git's error line for an atomic push stopped by a ref refused here.
    var atomicFailure: String?
    /// Problems met while matching refspecs (git's `error:` lines); the push then sends nothing.
    var matchErrors: [String] = []
    /// git's advice after some of ``matchErrors``, by their index.
    var matchHints: [Int: String] = [:]
    /// The remote refs `--mirror` deletes for want of a local one.
    var mirrorDeletions: Set<String> = []
    /// What ``RepositoryPushOptions/prePush`` threw; the push then sends nothing.
    var prePushError: (any Error)?
    private(set) var writer: PackWriter?
    weak var connection: PackStreamingConnection?

    init(
        gitDirectory: String, refspecs: [PushRefspec], options: RepositoryPushOptions, progress: FetchProgressHandler?
    ) throws {
        let repository = try Repository(gitDirectory: gitDirectory)
        // A negative refspec read for another format than the repository's (see
        // PushRefspec.init(_:objectFormat:)): refused as git refuses it.
        let format = repository.objects.format
        if let refused = refspecs.first(where: { $0.isRefused(in: format) }) {
            throw PushRefspecError("invalid refspec '\(refused)'", failsPush: false)
        }
        self.repository = repository
        self.refspecs = refspecs
        self.options = options
        self.progress = progress
    }

    var exchangeOptions: PushOptions {
        PushOptions(
            protocolVersion: options.protocolVersion, atomic: options.atomic, pushOptions: options.pushOptions,
            quiet: options.quiet, progress: options.progress, dryRun: options.dryRun, agent: options.agent,
            objectFormat: repository.objects.format)
    }

    func makeExchange() -> PushExchange {
        let box = Transferred(self)
        // What a refspec may be mapped to (the configured push refspecs, the upstreams) is kept too.
        let mappings = options.configuredRefspecs + options.upstreams.values.map { PushRefspec(source: $0) }
        let keeping =
            options.mirror || options.prune
            ? nil
            : (try? RemoteRefFilter(repository: repository, refspecs: refspecs + mappings)).map {
                filter in { @Sendable (ref: Ref) in filter.keeps(ref) }
            }
        // git's send-pack feeds the `.have` ids it has to pack-objects as the remote's objects.
        let keepingHave: @Sendable (ObjectID) -> Bool = { box.value.repository.objects.contains($0) }
        return PushExchange(options: exchangeOptions, keeping: keeping, keepingHave: keepingHave) { listing in
            try box.value.plan(listing)
        }
    }

    // MARK: Deciding

    struct Match {
        var source: String?
        var sourceID: ObjectID?
        var destination: String
        var force: Bool
    }

    /// The commands to send for the remote's `listing`.
    func plan(_ listing: RefListing) throws -> [PushCommand] {
        let localRefs = try repository.refs.all()
        // git's send-pack takes only well-formed names under `refs/` from a receive-pack
        // (`check_ref` with REF_NORMAL): the others are dropped, neither matched, deleted by
        // --mirror, shown nor excluded from the pack.
        let remoteRefs = listing.refs.filter { $0.objectID != nil && Self.isNormalRefName($0.nameBytes) }
        // The `.have` ids (the server's alternates) count as the remote's objects, as in git's
        // send-pack: excluded from the pack, and bases of a thin one.
        advertised = remoteRefs.compactMap(\.objectID) + listing.haves
        var matches: [Match] = []
        var specs = refspecs.map { mapped($0, localRefs: localRefs) }
        if options.all {
            specs += localRefs.filter { $0.name.hasPrefix("refs/heads/") }.map { PushRefspec(source: $0.name) }
        }
        if options.tags {
            // git's --tags adds the pattern `refs/tags/*` after the refspecs.
            specs.append(PushRefspec(source: "refs/tags/*"))
        }
        let remoteNames = Set(remoteRefs.map(\.name))
        var direct: [Match] = []
        if options.mirror {
            // git's --mirror: every local ref, forced, and the remote's refs we lack deleted.
            let localNames = Set(localRefs.map(\.name))
            direct += localRefs.filter { $0.name.hasPrefix("refs/") }.map {
                Match(source: $0.name, sourceID: $0.id, destination: $0.name, force: true)
            }
            let deleted = remoteRefs.filter { !localNames.contains($0.name) }
            direct += deleted.map { Match(source: nil, sourceID: nil, destination: $0.name, force: true) }
            mirrorDeletions = Set(deleted.map(\.name))
        }
        for match in direct where !matches.contains(where: { $0.destination == match.destination }) {
            matches.append(match)
        }
        for spec in specs where !spec.isPattern && !spec.isMatching && !spec.isNegative {
            if let match = try match(spec, localRefs: localRefs, remoteRefs: remoteRefs) {
                if matches.contains(where: { $0.destination == match.destination }) {
                    // --all or --tags naming what a refspec names already is no conflict.
                    if options.all || options.tags,
                        matches.contains(where: { $0.destination == match.destination && $0.source == match.source })
                    {
                        continue
                    }
                    matchErrors.append("dst ref \(match.destination) receives from more than one src")
                    continue
                }
                matches.append(match)
            }
        }
        matches += remainder(specs: specs, localRefs: localRefs, remoteNames: remoteNames, matched: matches)
        guard matchErrors.isEmpty else { return [] }
        if options.followTags {
            matches += try missingTags(matches: matches, localRefs: localRefs, remoteRefs: remoteRefs)
        }
        if options.prune {
            matches += pruned(specs: specs, localRefs: localRefs, remoteRefs: remoteRefs, matched: matches)
            // git's prune gives --mirror's deletions a local side, and so its hook hears of them.
            mirrorDeletions = []
        }
        // git 2.39's push drops, last, every remote ref a negative refspec names (by the
        // remote's name, not the local one).
        let negatives = specs.filter(\.isNegative)
        if !negatives.isEmpty {
            matches.removeAll { match in negatives.contains { $0.excludes(match.destination) } }
        }

        // git's order: the remote's refs as advertised, then new ones as matched.
        let position = Dictionary(remoteRefs.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        let ordered = matches.enumerated().sorted { a, b in
            let pa = position[a.element.destination] ?? remoteRefs.count + a.offset
            let pb = position[b.element.destination] ?? remoteRefs.count + b.offset
            return pa < pb
        }.map(\.element)

        let deleteRefs = listing.capabilities.contains("delete-refs")
        let remoteValues = Dictionary(
            remoteRefs.map { ($0.name, $0.objectID!) }, uniquingKeysWith: { a, _ in a })
        for match in ordered {
            let old = remoteValues[match.destination]
            var result = PushRefResult(
                source: match.source, destination: match.destination, old: old, new: match.sourceID, forced: false,
                status: .ok)
            let isDeletion = match.sourceID == nil
            // git's set_ref_status_for_push: up to date, then the lease, then the usual rules;
            // force (the lease's too) turns a rejection into a forced update.
            if !isDeletion && old == match.sourceID {
                result.status = .upToDate
                results.append(result)
                continue
            }
            var force = match.force || options.force
            var rejection: PushRefResult.Rejection?
            if let expected = try leaseExpectation(for: match.destination) {
                if expected != old { rejection = .stale } else { force = true }
            }
            if rejection == nil, let old, let new = match.sourceID {
                rejection = try self.rejection(old: old, new: new, name: match.destination)
            }
            if let rejection {
                if force { result.forced = true } else { result.status = .rejected(rejection) }
            }
            if result.status == .ok && isDeletion && !deleteRefs { result.status = .deletionNotSupported }
            results.append(result)
        }
        if results.contains(where: { if case .rejected = $0.status { true } else { false } }) {
            localRejection = true
        }
        // git's transport_push runs the pre-push hook here: after its statuses, before
        // send-pack (and so before its --atomic check) sends anything.
        if let check = options.prePush {
            do {
                // git's --mirror deletes the remote's other refs without a local ref (no
                // `peer_ref`): its hook hears nothing of them.
                try check.run(
                    results.filter { PrePushCheck.lists($0.status) && !mirrorDeletions.contains($0.destination) })
            } catch {
                prePushError = error
                return []
            }
        }
        // git's send-pack: with --atomic, the first ref refused locally (a deletion the server
        // does not allow included) stops the push before its commands, with git's error line
        // (`status` is git's REF_STATUS number) and no flush; the other refs fail with it. Over
        // smart HTTP git's push stops there itself, before its helper runs send-pack: no line.
        if options.atomic, let refused = results.first(where: { Self.gitRefusalStatus($0.status) != nil }) {
            for index in results.indices where results[index].status == .ok {
                results[index].status = .atomicPushFailed
            }
            if connection?.persists != false {
                atomicFailure =
                    "atomic push failed for ref \(refused.destination). status: \(Self.gitRefusalStatus(refused.status)!)\n"
            }
            throw PushError.atomicRefusedLocally
        }
        let zero = ObjectID.zero(repository.objects.format)
        commands = results.filter { $0.status == .ok }.map {
            PushCommand(name: $0.destination, old: $0.old ?? zero, new: $0.new ?? zero)
        }
        return commands
    }

    /// What `--force-with-lease` expects the remote's `name` to hold: nil when no lease covers
    /// it; .some(nil) when it must not exist.
    private func leaseExpectation(for name: String) throws -> ObjectID?? {
        let lease =
            options.leases.first { $0.ref.map { Self.refnameMatches($0, name) } ?? false }
            ?? options.leases.first { $0.ref == nil }
        guard let lease else { return nil }
        switch lease.expectation {
        case .value(let id): return .some(id)
        case .tracking:
            // The first fetch refspec that maps the name decides; an unreadable ref expects none.
            guard let local = options.trackingRefspecs.lazy.compactMap({ $0.destination(for: name) }).first else {
                return .some(nil)
            }
            return .some(try repository.refs.resolve(local))
        }
    }

    /// Whether the short name `abbreviation` names the full `name` by git's `refname_match` rules.
    static func refnameMatches(_ abbreviation: String, _ name: String) -> Bool {
        [
            abbreviation, "refs/\(abbreviation)", "refs/tags/\(abbreviation)", "refs/heads/\(abbreviation)",
            "refs/remotes/\(abbreviation)", "refs/remotes/\(abbreviation)/HEAD",
        ].contains(name)
    }

    /// git's `--follow-tags`: annotated tags under `refs/tags/` that neither the remote nor the
    /// matches name, pointing at commits reachable from what is pushed or what the remote's other
    /// refs hold.
    private func missingTags(matches: [Match], localRefs: [RefRecord], remoteRefs: [Ref]) throws -> [Match] {
        let named = Set(remoteRefs.map(\.name)).union(matches.map(\.destination))
        var candidates: [(RefRecord, ObjectID)] = []
        for ref in localRefs where ref.name.hasPrefix("refs/tags/") && !named.contains(ref.name) {
            guard try repository.objects.objectType(ref.id) == .tag, let commit = try peeledCommit(ref.id)
            else { continue }
            candidates.append((ref, commit))
        }
        guard !candidates.isEmpty else { return [] }
        let pushed = Set(matches.map(\.destination))
        var tips = matches.compactMap(\.sourceID)
        tips += remoteRefs.filter { !pushed.contains($0.name) }.compactMap(\.objectID)
        let graph = DatabaseCommitGraph(objects: repository.objects)
        var seen: Set<ObjectID> = []
        var stack = try tips.compactMap { try peeledCommit($0) }
        while let next = stack.popLast() {
            guard seen.insert(next).inserted, let summary = graph.commit(next) else { continue }
            stack += summary.parents
        }
        return candidates.filter { seen.contains($0.1) }.map {
            Match(source: $0.0.name, sourceID: $0.0.id, destination: $0.0.name, force: false)
        }
    }

    /// Why git would refuse to update `name` from `old` to `new` without force, if it would.
    private func rejection(old: ObjectID, new: ObjectID, name: String) throws -> PushRefResult.Rejection? {
        if name.hasPrefix("refs/tags/") { return .alreadyExists }
        guard repository.objects.contains(old) else { return .fetchFirst }
        guard let oldCommit = try peeledCommit(old), let newCommit = try peeledCommit(new) else { return .needsForce }
        return try isAncestor(oldCommit, of: newCommit) ? nil : .nonFastForward
    }

    /// Whether `ancestor` is reachable from `commit`: git's `ref_newer`, which walks from
    /// `commit` newest first by committer date until it meets `ancestor`. The usual push moves a
    /// ref from a recent commit, met after a few steps; a walk in any other order (depth first
    /// along second parents) can read most of the history first. Dates only order the walk,
    /// they prune nothing: a skewed history is walked to its roots when `ancestor` is not in it.
    private func isAncestor(_ ancestor: ObjectID, of commit: ObjectID) throws -> Bool {
        let graph = DatabaseCommitGraph(objects: repository.objects)
        guard let first = graph.commit(commit) else { return commit == ancestor }
        var seen: Set<ObjectID> = [commit]
        var heap = CommitHeap()
        heap.push(commit, time: first.committerTime)
        var summaries: [ObjectID: CommitSummary] = [commit: first]
        while let next = heap.pop() {
            if next == ancestor { return true }
            guard let summary = summaries.removeValue(forKey: next) else { continue }
            for parent in summary.parents where seen.insert(parent).inserted {
                if parent == ancestor { return true }
                guard let parentSummary = graph.commit(parent) else { continue }
                summaries[parent] = parentSummary
                heap.push(parent, time: parentSummary.committerTime)
            }
        }
        return false
    }

    // MARK: Sending

    /// Handles what the exchange emits: the server's messages, and the pack once the commands go.
    func handle(_ event: PushEvent) throws {
        switch event {
        case .ref: break
        case .remoteMessage(let bytes): progress?(.remote(RemoteProgressLine(chunk: bytes)))
        case .sending(let request):
            sentRequest = request
            guard request.sendsPack, !options.dryRun else { return }
            var exclude: [ObjectID] = []
            // What the remote advertised (that we have) and the old values: git's negative revisions.
            for command in request.commands where !command.old.isZero { exclude.append(command.old) }
            let include = request.commands.filter { !$0.isDeletion }.map(\.new)
            var packing: (@Sendable (PackingProgress) -> Void)?
            if options.progress, let handler = progress {
                packing = { handler(.packing($0)) }
            }
            var packOptions = PackWriter.Options(offsetDeltas: request.ofsDelta, thin: options.thin && request.thinPack)
            packOptions.commitGraph = repository.commitGraphEnabled
            let writer = try PackWriter(
                database: repository.objects, include: include, exclude: exclude + advertised, options: packOptions,
                progress: packing)
            self.writer = writer
            connection?.writer = writer
        }
    }

    /// The request whose commands went out, once they did.
    private var sentRequest: PushRequest?

    /// The remote's advertised ids, kept by the exchange's listing for the pack's exclusions.
    var advertised: [ObjectID] = []

    // MARK: Finishing

    /// The results, once the exchange ended; updates remote-tracking refs for what the server
    /// accepted.
    func complete(_ outcome: PushOutcome) throws -> PushResult {
        if !matchErrors.isEmpty {
            throw PushMatchError(errors: matchErrors, hints: matchHints)
        }
        if let prePushError { throw prePushError }
        var errors: [String] = atomicFailure.map { [$0] } ?? []
        var warnings: [String] = []
        if let report = outcome.report {
            errors += report.problems
            warnings += report.warnings
        }
        for index in results.indices where results[index].status == .ok && !options.dryRun {
            guard outcome.request != nil else { continue }
            if let report = outcome.report {
                guard let answer = report.ref(results[index].destination) else {
                    results[index].status = .remoteFailure
                    continue
                }
                if let rejection = answer.rejection { results[index].status = .remoteRejected(rejection) }
            }
        }
        let tracking = options.dryRun ? (errors: [], refused: false) : try updateTrackingRefs()
        var result = PushResult(
            refs: results, pack: writer?.statistics, report: outcome.report, errors: errors, warnings: warnings,
            trackingErrors: tracking.errors)
        result.trackingRefusedBySharedRepository = tracking.refused
        return result
    }

    /// What a push that failed before sending anything reports: over smart HTTP (`stateless`),
    /// a receiving end of another format or without a capability the push asked for is the
    /// helper's death after the refs were decided (git then reports the refs it refused itself,
    /// or the refspecs that matched nothing).
    func failure(_ error: any Error, stateless: Bool) -> any Error {
        if let prePushError { return prePushError }
        // The connection lost after the commands (not a timeout, not cancelled): git's words.
        if !stateless, let request = sentRequest, let lost = error as? any GitWireError, lost.kind == .connectionLost {
            // A side-band that ended cleanly before the report: git's demultiplexer says nothing.
            let cutShort = (lost as? PushError) == .sideBandEndedBeforeReport
            // A band git does not know: its demultiplexer names it, and says nothing more.
            let refused = (lost as? PushError).flatMap { $0.isBadBand ? $0.message : nil }
            return PushHungUpError(
                sideBand: request.sideBand && !cutShort && refused == nil, demultiplexerError: refused,
                underlying: AnyGitWireError(lost))
        }
        // Over smart HTTP, no credentials for the 401 of the request that carries the commands
        // (after a redirect to another origin, whose credentials are never the first one's):
        // git's remote helper dies there, and its send-pack finds the report missing.
        if stateless, let request = sentRequest, let http = error as? HTTPError,
            case .credentialsUnavailable = http.reason
        {
            return PushRequestFailedError(sideBand: request.sideBand, underlying: http)
        }
        guard stateless, let pushError = error as? PushError, pushError.stopsSendPack else {
            return error
        }
        if !matchErrors.isEmpty { return PushMatchError(errors: matchErrors, hints: matchHints) }
        let refused = results.filter { if case .rejected = $0.status { true } else { false } }
        return PushHelperError(error: pushError, refused: refused)
    }

    /// Moves the remote-tracking refs the tracking refspecs map accepted refs to; returns those
    /// that could not be moved. Moves none when a refused `core.sharedRepository` would end the
    /// command at the first lock (`refused`): the caller reports first, then dies, as git.
    private func updateTrackingRefs() throws -> (errors: [RefUpdateError], refused: Bool) {
        var updates: [RefUpdate] = []
        // git's transport_update_tracking_ref moves them for refs up to date too (a stale
        // remote-tracking ref catches up); one that already holds the value is not written.
        for result in results where result.status == .ok || (result.status == .upToDate && result.new != nil) {
            for spec in options.trackingRefspecs {
                guard let local = spec.destination(for: result.destination) else { continue }
                if result.status == .upToDate, (try? repository.refs.resolve(local)) == result.new { break }
                // git's transport_update_tracking_ref: "update by push" in the reflog.
                updates.append(
                    RefUpdate(name: local, newID: result.new, logMessage: result.new == nil ? nil : "update by push"))
                break
            }
        }
        guard !updates.isEmpty else { return ([], false) }
        // Reading the reflog's configuration makes the repository's `core.sharedRepository` the process's.
        let reflog = trackingReflog()
        if FileSystem.sharedRepositoryRefusalPending { return ([], true) }
        return (try repository.refs.apply(updates, atomic: false, objectType: nil, reflog: reflog), false)
    }

    /// The reflog the remote-tracking refs are logged in, as git's `update_ref` logs them
    /// (`core.logAllRefUpdates`: by default in a repository with a work tree, not in a bare one).
    private func trackingReflog() -> Reflog? {
        let location = repository.location
        guard let configuration = try? GitConfiguration.load(gitDirectory: location.gitDirectory) else { return nil }
        configuration.useSharedRepository()
        let bare =
            (try? configuration.bool("core.bare")) ?? nil
            ?? (location.workTree == nil && !location.gitDirectory.hasSuffix("/.git"))
        return Reflog(
            gitDirectory: location.gitDirectory, commonDirectory: location.commonDirectory,
            policy: Reflog.policy(configuration, bare: bare),
            identity: Reflog.committerIdentity(configuration, environment: Environment.all()))
    }
}
