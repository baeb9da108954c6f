import GitWireCore
import Glibc

/// What a non-blocking call did: finished with a value, or could not proceed without blocking.
package enum IOResult<Value> {
    case done(Value)
    case wouldBlock
}

/// Runs `body` until it does not fail with `EINTR`; any other failure (`-1` and `errno`) is thrown.
@inline(__always)
package func retryingInterrupts<Value: FixedWidthInteger>(_ call: String, _ body: () -> Value) throws -> Value {
    while true {
        let result = body()
        if result != -1 { return result }
        let error = Errno.current
        if error == .interrupted { continue }
        throw SystemCallError(call, error)
    }
}

/// Like ``retryingInterrupts(_:_:)``, but `EAGAIN` comes back as ``IOResult/wouldBlock`` instead of an error.
@inline(__always)
package func retryingNonBlocking<Value: FixedWidthInteger>(_ call: String, _ body: () -> Value) throws -> IOResult<
    Value
> {
    while true {
        let result = body()
        if result != -1 { return .done(result) }
        let error = Errno.current
        if error == .interrupted { continue }
        if error == .wouldBlock || error.rawValue == EWOULDBLOCK { return .wouldBlock }
        throw SystemCallError(call, error)
    }
}
