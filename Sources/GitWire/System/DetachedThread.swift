import Glibc

/// Starts `body` on a new detached thread.
func startDetachedThread(_ body: @escaping @Sendable () -> Void) throws {
    final class Box: @unchecked Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let box = Unmanaged.passRetained(Box(body))
    var thread = pthread_t()
    let status = pthread_create(
        &thread, nil,
        { pointer in
            let box = Unmanaged<Box>.fromOpaque(pointer!).takeRetainedValue()
            box.body()
            return nil
        }, box.toOpaque())
    guard status == 0 else {
        box.release()
        throw SystemCallError("pthread_create", Errno(rawValue: status))
    }
    pthread_detach(thread)
}
