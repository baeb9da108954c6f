import GitWire

/// Writes an executable script. The file is opened close-on-exec, so a child another test spawns
/// meanwhile cannot hold it open for writing (which would make running it fail with "Text file
/// busy").
func writeExecutable(_ path: String, _ text: String) throws {
    let file = try File.create(path, mode: 0o755)
    try file.write(Array(text.utf8)[...])
    try file.close()
}
