// The support of the core's tests (the fixtures directory) comes with the rest of the support.
@_exported import GitWireCoreTestSupport
