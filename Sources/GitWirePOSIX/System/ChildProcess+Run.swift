import GitWireCore
import Glibc

/// What a finished child process printed and how it ended.
package struct ChildProcessOutput: Sendable {
    package var status: Int32
    package var standardOutput: [UInt8]
    package var standardError: [UInt8]
}

extension ChildProcess {
    /// Runs `arguments` to the end, blocking: writes `input` to its standard input, collects what
    /// it prints on standard output and standard error (each up to `limit` bytes; the rest is
    /// read and dropped), and waits for it. For short helpers (`git credential`), never on a run
    /// loop's thread.
    package static func run(
        _ arguments: [String], input: [UInt8], environment: [String: String?] = [:], limit: Int = 1 << 20
    ) throws -> ChildProcessOutput {
        let (process, pipes) = try spawn(arguments, environment: environment, captureStandardError: true)
        var open: [(FileDescriptor, Bool)] = [(pipes.standardOutput, false)]
        if let standardError = pipes.standardError { open.append((standardError, true)) }
        var output: [UInt8] = []
        var errors: [UInt8] = []
        var pendingInput = input[...]
        var inputOpen = true
        if pendingInput.isEmpty {
            try? pipes.standardInput.close()
            inputOpen = false
        }
        defer {
            if inputOpen { try? pipes.standardInput.close() }
            for (fd, _) in open { try? fd.close() }
        }
        while !open.isEmpty || inputOpen {
            var entries = open.map { pollfd(fd: $0.0.rawValue, events: Int16(POLLIN), revents: 0) }
            if inputOpen {
                entries.append(pollfd(fd: pipes.standardInput.rawValue, events: Int16(POLLOUT), revents: 0))
            }
            let ready = poll(&entries, nfds_t(entries.count), -1)
            if ready < 0 {
                if Errno.current == .interrupted { continue }
                throw SystemCallError("poll", Errno.current)
            }
            if inputOpen, entries[entries.count - 1].revents != 0 {
                switch try? pipes.standardInput.write(pendingInput, isSocket: false) {
                case .done(let count)?: pendingInput = pendingInput.dropFirst(count)
                case .wouldBlock?: break
                case nil: pendingInput = []
                }
                if pendingInput.isEmpty {
                    try? pipes.standardInput.close()
                    inputOpen = false
                }
            }
            var stillOpen: [(FileDescriptor, Bool)] = []
            for (index, (fd, isError)) in open.enumerated() {
                guard entries[index].revents != 0 else {
                    stillOpen.append((fd, isError))
                    continue
                }
                switch try fd.read(maxCount: 65536) {
                case .done(let bytes) where bytes.isEmpty:
                    try? fd.close()
                case .done(let bytes):
                    if isError {
                        errors += bytes.prefix(max(0, limit - errors.count))
                    } else {
                        output += bytes.prefix(max(0, limit - output.count))
                    }
                    stillOpen.append((fd, isError))
                case .wouldBlock:
                    stillOpen.append((fd, isError))
                }
            }
            open = stillOpen
        }
        let status = try process.wait()
        return ChildProcessOutput(status: status, standardOutput: output, standardError: errors)
    }
}
