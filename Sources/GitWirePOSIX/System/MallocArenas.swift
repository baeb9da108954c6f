import CGitWire

/// glibc's malloc arenas. By default a thread that allocates while another holds an arena's lock
/// gets an arena of its own (up to eight a core), and each arena keeps the pages freed in it for
/// the next allocations made in it: a clone's three threads held three heaps of about 3 MiB each
/// at its peak. With one arena the threads reuse each other's freed pages (swift-nio's clone
/// 18.5 -> 16.3 MiB); the CPU time of indexing libgit2's and git.git's packs on two threads did
/// not change (Documentation/Performance.md, "Peak memory on small packs").
package enum MallocArenas {
    /// Limits malloc to `count` arenas; for a program (the command line) to call before it
    /// starts threads. Returns whether malloc took the setting.
    @discardableResult
    package static func limit(to count: Int) -> Bool {
        cgw_limit_malloc_arenas(Int32(count)) == 1
    }
}
