// `import GitWire` brings the whole library: the pure core and the POSIX layer with it.
@_exported import GitWireCore
@_exported import GitWirePOSIX
