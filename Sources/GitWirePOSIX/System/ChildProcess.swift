import CGitWire
import GitWireCore
import Glibc

/// A child process started with pipes on its standard input and output.
public final class ChildProcess: Sendable {
    /// The process id.
    public let pid: pid_t
    /// The exit code, once the process has been reaped; any thread may reap it.
    private let status = Locked<Int32?>(nil)

    private init(pid: pid_t) { self.pid = pid }

    /// The descriptors of a spawned child: its standard input, output and, if captured, error.
    package struct Pipes {
        var standardInput: FileDescriptor
        var standardOutput: FileDescriptor
        var standardError: FileDescriptor?
    }

    /// Starts `arguments[0]` (looked up on `PATH`) with `arguments`, changing this process's
    /// environment by `environment` (a nil value removes the variable). Standard error is
    /// inherited unless `captureStandardError` is set.
    /// The returned descriptors are non-blocking and close-on-exec.
    package static func spawn(
        _ arguments: [String], environment: [String: String?] = [:], captureStandardError: Bool = false
    ) throws -> (ChildProcess, Pipes) {
        ignoreBrokenPipeSignal()
        let stdin = try makePipe()
        let stdout = try makePipe()
        let stderr = captureStandardError ? try makePipe() : nil
        let process: ChildProcess
        do {
            process = try launch(arguments, environment: environment) { actions in
                posix_spawn_file_actions_adddup2(&actions, stdin.read.rawValue, 0)
                posix_spawn_file_actions_adddup2(&actions, stdout.write.rawValue, 1)
                if let stderr { posix_spawn_file_actions_adddup2(&actions, stderr.write.rawValue, 2) }
            }
        } catch {
            for fd in [stdin.read, stdin.write, stdout.read, stdout.write] { try? fd.close() }
            try? stderr?.read.close()
            try? stderr?.write.close()
            throw error
        }
        try? stdin.read.close()
        try? stdout.write.close()
        try? stderr?.write.close()
        for fd in [stdin.write, stdout.read] + (stderr.map { [$0.read] } ?? []) { try fd.setNonBlocking() }
        return (process, Pipes(standardInput: stdin.write, standardOutput: stdout.read, standardError: stderr?.read))
    }

    /// Starts a background program (a test server, say) with standard input and output on
    /// `/dev/null` and standard error inherited.
    package static func spawnDetached(_ arguments: [String], environment: [String: String?] = [:]) throws
        -> ChildProcess
    {
        try launch(arguments, environment: environment) { actions in
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
    }

    /// Runs `arguments` with standard input, output and error on `/dev/null` and returns its
    /// exit code (git's `no_stdin`/`no_stdout`/`no_stderr` children, such as its ssh probe). With
    /// a `timeout`, a child still running then is killed (its code is then 128 + `SIGKILL`).
    package static func runSilently(
        _ arguments: [String], environment: [String: String?] = [:], timeout: Duration? = nil
    ) throws -> Int32 {
        let process = try launch(arguments, environment: environment) { actions in
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        guard let timeout else { return try process.wait() }
        return process.reap(grace: timeout)
    }

    /// `posix_spawnp` with a clean signal state: nothing blocked and `SIGPIPE` back to its
    /// default, whatever the calling thread has (runtimes block signals on their threads, and
    /// children would inherit that and ignore `SIGTERM`).
    static func launch(
        _ arguments: [String], environment: [String: String?],
        fileActions: (inout posix_spawn_file_actions_t) -> Void
    ) throws -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        fileActions(&actions)
        // Descriptors another thread opened without close-on-exec (Foundation's pipes, say) would
        // otherwise leak into the child and keep pipes and sockets open as long as it lives.
        _ = cgw_spawn_close_from(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var merged: [String: String] = [:]
        var cursor = environ
        while let entry = cursor.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                merged[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            cursor += 1
        }
        for (key, value) in environment { merged[key] = value }

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp)
        guard result == 0 else { throw SystemCallError("posix_spawn \(arguments[0])", Errno(rawValue: result)) }
        return ChildProcess(pid: pid)
    }

    /// Waits for the process to end and returns its exit code (128 + the signal if a signal ended it).
    @discardableResult
    public func wait() throws -> Int32 {
        if let code = status.withLock({ $0 }) { return code }
        var raw: Int32 = 0
        do {
            _ = try retryingInterrupts("waitpid") { waitpid(pid, &raw, 0) }
        } catch let error as SystemCallError where error.errno == .noChild {
            // Another thread reaped it between the check and the wait.
            if let code = status.withLock({ $0 }) { return code }
            throw error
        }
        return record(raw)
    }

    /// The exit code if the process has ended, without waiting; nil while it runs.
    public func exitCodeIfEnded() -> Int32? {
        if let code = status.withLock({ $0 }) { return code }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, WNOHANG) == pid else { return status.withLock { $0 } }
        return record(raw)
    }

    /// Keeps the exit code of a wait status: the code, or 128 + the signal that ended it.
    private func record(_ raw: Int32) -> Int32 {
        let code = raw & 0x7f == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
        status.withLock { $0 = code }
        return code
    }

    /// A descriptor that becomes readable when the process ends (a pidfd), for run loops; nil
    /// where the kernel has none or the process is already reaped.
    func exitDescriptor() -> FileDescriptor? {
        guard status.withLock({ $0 }) == nil else { return nil }
        let fd = cgw_pidfd_open(pid)
        guard fd >= 0 else { return nil }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return FileDescriptor(rawValue: fd)
    }

    /// Sends `SIGTERM`.
    public func terminate() { if status.withLock({ $0 }) == nil { kill(pid, SIGTERM) } }

    static func makePipe() throws -> (read: FileDescriptor, write: FileDescriptor) {
        var fds: [CInt] = [0, 0]
        _ = try retryingInterrupts("pipe2") { cgw_pipe_cloexec(&fds) }
        return (FileDescriptor(rawValue: fds[0]), FileDescriptor(rawValue: fds[1]))
    }
}

/// Makes writes to a closed pipe fail with `EPIPE` instead of killing the process.
/// Sockets need no such thing: they are written with `MSG_NOSIGNAL`.
package func ignoreBrokenPipeSignal() {
    _ = brokenPipeSignalIgnored
}

private let brokenPipeSignalIgnored: Bool = {
    signal(SIGPIPE, SIG_IGN)
    return true
}()
