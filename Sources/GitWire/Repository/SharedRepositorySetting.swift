import GitWirePOSIX

extension GitConfiguration {
    /// Makes the repository's `core.sharedRepository` the process's (see ``SharedRepository``),
    /// as git reads it when it sets up a repository: the files and directories made afterwards
    /// are opened up to the group or everyone as it says. A value git refuses (an octal mode the
    /// owner cannot read and write, a value that is no boolean) is git's error when the first
    /// file is made (``FileSystem/refuseSharedRepository(_:)``).
    package func useSharedRepository() {
        guard let entry = try? last("core.sharedRepository") else {
            FileSystem.useSharedRepository(0)
            return
        }
        if let refusal = SharedRepository.refusal(entry.value) {
            FileSystem.refuseSharedRepository(refusal)
        } else {
            FileSystem.useSharedRepository(SharedRepository.parse(entry.value) ?? 0)
        }
    }
}
