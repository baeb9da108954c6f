/// How far making a pack has come, in the phases `git pack-objects` shows.
public enum PackingProgress: Sendable, Hashable {
    /// The objects to send were found ("Enumerating objects: N, done.").
    case enumerated(objects: Int)
    /// Objects whose stored form was looked up ("Counting objects").
    case counting(completed: Int, total: Int)
    /// Objects searched for deltas ("Compressing objects"), on up to `threads` threads.
    case compressing(completed: Int, total: Int, threads: Int)
    /// Objects written ("Writing objects"), with the pack's bytes so far.
    case writing(completed: Int, total: Int, bytes: UInt64)
    /// The pack is complete ("Total …").
    case finished(PackWriter.Statistics)
}
