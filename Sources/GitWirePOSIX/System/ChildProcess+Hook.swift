import CGitWire
import GitWireCore
import Glibc

extension ChildProcess {
    /// Runs `arguments` as git runs a hook (its `run_pre_push_hook`), blocking until it ends:
    /// standard output and error are this process's, standard input is a pipe given `input`,
    /// the working directory is `directory` (this process's when nil) and the environment this
    /// process's changed by `environment` (a nil value removes the variable). A hook that does
    /// not read all its input is no failure (git ignores `EPIPE`: the rest is dropped). Returns
    /// the exit code (128 + the signal if a signal ended it).
    package static func runHook(
        _ arguments: [String], input: [UInt8], directory: String?, environment: [String: String?]
    ) throws -> Int32 {
        ignoreBrokenPipeSignal()
        let stdin = try makePipe()
        let process: ChildProcess
        do {
            process = try launch(arguments, environment: environment) { actions in
                posix_spawn_file_actions_adddup2(&actions, stdin.read.rawValue, 0)
                if let directory { _ = cgw_spawn_chdir(&actions, directory) }
            }
        } catch {
            try? stdin.read.close()
            try? stdin.write.close()
            throw error
        }
        try? stdin.read.close()
        var written = 0
        var failure: (any Error)?
        while written < input.count {
            do {
                guard case .done(let count) = try stdin.write.write(input[written...], isSocket: false), count > 0
                else { break }
                written += count
            } catch let error as SystemCallError where error.errno == .brokenPipe {
                break
            } catch {
                failure = error
                break
            }
        }
        try? stdin.write.close()
        let status = try process.wait()
        if let failure { throw failure }
        return status
    }
}
