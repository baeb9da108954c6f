import GitWire
