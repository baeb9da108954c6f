import GitWireCore
import Glibc

/// One object per thread, made on first use and released when the thread ends.
package final class ThreadLocal<Value: AnyObject>: Sendable {
    private let key: pthread_key_t
    private let make: @Sendable () throws -> Value

    package init(_ make: @escaping @Sendable () throws -> Value) {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<AnyObject>.fromOpaque(pointer).release() }
        }
        self.key = key
        self.make = make
    }

    /// The calling thread's value, made now if the thread has none.
    package func value() throws -> Value {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue() as! Value
        }
        let value = try make()
        set(value)
        return value
    }

    /// Makes `value` the calling thread's value, releasing the one it had.
    package func set(_ value: Value) {
        let old = pthread_getspecific(key)
        pthread_setspecific(key, Unmanaged.passRetained(value as AnyObject).toOpaque())
        if let old { Unmanaged<AnyObject>.fromOpaque(old).release() }
    }
}
