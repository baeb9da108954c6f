// The testing library is there when tests are built; a plain build of every target (CI's release
// build) has no Testing module, and needs no trait.
#if canImport(Testing)
    import Testing

    /// Runs a test on ``TestThreads`` instead of the concurrency pool, so that synchronous tests
    /// holding the pool cannot stall it past its timeouts. Tasks the test starts itself need
    /// `Task(executorPreference: TestThreads.shared)`: unstructured tasks do not inherit it.
    public struct OnTestThreads: TestTrait, TestScoping {
        /// Runs `function` with ``TestThreads`` as its preferred task executor.
        public func provideScope(
            for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
        ) async throws {
            try await withTaskExecutorPreference(TestThreads.shared) { try await function() }
        }
    }

    extension Trait where Self == OnTestThreads {
        /// Runs the test on ``TestThreads``.
        public static var onTestThreads: Self { Self() }
    }
#endif
