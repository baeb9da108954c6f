import CGitWire
import Synchronization

/// The code pages of the executable (and of the libraries it loaded) in the process's resident set.
///
/// A page of code counts in the resident set from its first use until the process ends, and on
/// recent kernels a fault maps the whole large folio of the page cache around it, so the
/// start-up's and the command line's code stay counted through a long run's peak. A program that
/// opts in (``releaseBeforeHeavyWork()``) has them unmapped where a long phase begins (a pack's
/// first pass and its delta resolution), so that the phase's peak counts only the code it runs
/// (Documentation/Performance.md, "Peak memory on small packs"). The pages stay in the page
/// cache; their next use maps them again without reading the file.
package enum ExecutablePages {
    private static let optedIn = Atomic<Bool>(false)

    /// Makes ``releaseIfOptedIn()`` release the pages: for a program (the command line), not a
    /// library, since the executable is the program's.
    package static func releaseBeforeHeavyWork() {
        optedIn.store(true, ordering: .relaxed)
    }

    /// Unmaps the executable's and its libraries' read-only pages if the program opted in; returns
    /// the bytes of address space released (0 when not opted in, or under a debugger).
    @discardableResult
    package static func releaseIfOptedIn() -> Int {
        guard optedIn.load(ordering: .relaxed) else { return 0 }
        return release()
    }

    /// Unmaps the executable's and its libraries' read-only pages now (nothing under a debugger,
    /// whose breakpoints are private copies of code pages); returns the bytes of address space
    /// released.
    @discardableResult
    package static func release() -> Int {
        Int(cgw_release_executable_pages())
    }
}
