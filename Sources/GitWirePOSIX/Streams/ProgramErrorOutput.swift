/// What a transport does with what its program (ssh, `git-upload-pack`) writes on its standard
/// error. Whatever is chosen, the last lines are kept for the error that explains a failure
/// (GitWire's `RemoteProgramError`).
public struct ProgramErrorOutput: Sendable {
    /// Called with each piece as it arrives, on the run loop's thread; nil: nothing is passed on.
    public var forward: (@Sendable ([UInt8]) -> Void)?

    /// Passes each piece to `forward`.
    public init(forward: (@Sendable ([UInt8]) -> Void)?) { self.forward = forward }

    /// Written to this process's standard error as it arrives, as git's children write there:
    /// prompts, warnings and errors reach the user's terminal. The default.
    public static let standardError = ProgramErrorOutput { bytes in Console.writeError(bytes) }

    /// Not shown anywhere: only kept for errors (what a program listing many remotes wants, so
    /// that no remote's text appears unattributed).
    public static let kept = ProgramErrorOutput(forward: nil)
}
