import CGitWire
import GitWireCore
import Glibc

/// A file read through read-only maps of bounded windows instead of a `pread` per read: the
/// push's walk and plan read hundreds of thousands of small pack entries and entry headers (one
/// system call each before).
///
/// At most ``maximumWindows`` windows of ``windowSize`` bytes are mapped at a time (the least
/// recently used one is unmapped for a new one), so the file's pages counted in the process's
/// resident memory stay bounded, unlike git's maps of whole packs. The size is the file's when
/// it was opened; reads past it come back short, as at the end of a file. A file that shrinks
/// while mapped would raise SIGBUS where its pages are gone: copies catch that
/// (`cgw_mapped_copy`), and the read comes back empty, which readers take for a file changed
/// under them. Not for sharing between threads: each reader of a pack maps its own.
package final class MappedFile {
    /// The file's size when it was opened: reads end there.
    package let size: UInt64
    /// The bytes each window maps (a multiple of the page size), the last window fewer.
    package let windowSize: UInt64
    /// How many windows are mapped at most at once.
    package let maximumWindows: Int
    private let file: File
    private var windows: [(start: UInt64, address: UnsafeRawPointer, length: Int, used: UInt64)] = []
    private var clock: UInt64 = 0

    /// Maps `file` lazily, window by window; `file` is kept open while the value lives.
    ///
    /// The defaults (16 windows of 4 MiB) were measured on curl's whole history (`pack-objects`
    /// of 287,791 objects from a 126 MB pack; Documentation/Performance.md): 4 windows of 8 MiB
    /// mapped 47,000 times (the walk's readers jump between the commits, the trees and the delta
    /// bases across the pack) and cost more than the `pread`s they replaced; 16 of 4 MiB took
    /// the system time from 0.55 s to 0.33 s with 35 MiB more peak memory; a map of the whole
    /// pack (git's way) 0.22 s, but 110 MiB more, as much as git's peak.
    package init(_ file: File, windowSize: Int = 4 << 20, maximumWindows: Int = 16) throws {
        self.file = file
        size = UInt64(try file.size())
        let page = UInt64(max(4096, sysconf(Int32(_SC_PAGESIZE))))
        self.windowSize = max(page, UInt64(windowSize) / page * page)
        self.maximumWindows = max(1, maximumWindows)
    }

    deinit {
        for window in windows { _ = cgw_unmap(UnsafeMutableRawPointer(mutating: window.address), window.length) }
    }

    /// Up to `count` bytes at `offset`: shorter only past the size the file had when opened, and
    /// empty when the file shrank under the map (instead of SIGBUS).
    package func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard offset < size, count > 0 else { return [] }
        let total = Int(min(UInt64(count), size - offset))
        var failed = false
        var failure: (any Error)?
        let bytes = [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
            initialized = 0
            var position = offset
            var done = 0
            while done < total {
                let window: (start: UInt64, address: UnsafeRawPointer, length: Int)
                do { window = try self.window(containing: position) } catch {
                    failure = error
                    return
                }
                let from = Int(position - window.start)
                let piece = min(total - done, window.length - from)
                if cgw_mapped_copy(buffer.baseAddress! + done, window.address + from, piece) != 0 {
                    failed = true
                    return
                }
                done += piece
                position += UInt64(piece)
            }
            initialized = total
        }
        if let failure { throw failure }
        return failed ? [] : bytes
    }

    /// The CRC-32 of the `count` bytes at `offset`, continuing `crc`, read where they lie; nil
    /// when they are not all there (past the size the file had when opened, or cut since).
    package func crc32(at offset: UInt64, count: Int, continuing crc: UInt32 = 0) throws -> UInt32? {
        guard offset <= size, UInt64(count) <= size - offset else { return nil }
        var crc = crc
        var position = offset
        var done = 0
        while done < count {
            let window = try self.window(containing: position)
            let from = Int(position - window.start)
            let piece = min(count - done, window.length - from)
            if cgw_mapped_crc32(&crc, window.address + from, piece) != 0 { return nil }
            done += piece
            position += UInt64(piece)
        }
        return crc
    }

    private func window(containing offset: UInt64) throws -> (start: UInt64, address: UnsafeRawPointer, length: Int) {
        clock &+= 1
        for index in windows.indices
        where offset >= windows[index].start && offset - windows[index].start < UInt64(windows[index].length) {
            windows[index].used = clock
            return (windows[index].start, windows[index].address, windows[index].length)
        }
        let start = offset / windowSize * windowSize
        let length = Int(min(windowSize, size - start))
        if windows.count >= maximumWindows,
            let oldest = windows.indices.min(by: { windows[$0].used < windows[$1].used })
        {
            let old = windows.remove(at: oldest)
            _ = cgw_unmap(UnsafeMutableRawPointer(mutating: old.address), old.length)
        }
        guard let address = cgw_map_readonly(file.descriptor.rawValue, start, length) else {
            throw SystemCallError("mmap \(file.path)", Errno.current)
        }
        windows.append((start, UnsafeRawPointer(address), length, clock))
        return (start, UnsafeRawPointer(address), length)
    }
}

/// CRC-32 (zlib's) of `bytes`, continuing from `crc`, with libdeflate's carry-less multiply
/// (about twice zlib's speed here: 12 ms for 198 MB against 27 ms).
package func fastCRC32(_ bytes: ArraySlice<UInt8>, continuing crc: UInt32 = 0) -> UInt32 {
    bytes.withUnsafeBytes { UInt32(libdeflate_crc32(crc, $0.baseAddress, $0.count)) }
}
