import Glibc

/// One object per thread, made on first use and released when the thread ends.
final class ThreadLocal<Value: AnyObject>: Sendable {
    private let key: pthread_key_t
    private let make: @Sendable () throws -> Value

    init(_ make: @escaping @Sendable () throws -> Value) {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<AnyObject>.fromOpaque(pointer).release() }
        }
        self.key = key
        self.make = make
    }

    /// Makes `value` the calling thread's value (replacing one made before).
    func set(_ value: Value) {
        if let old = pthread_getspecific(key) { Unmanaged<AnyObject>.fromOpaque(old).release() }
        pthread_setspecific(key, Unmanaged.passRetained(value as AnyObject).toOpaque())
    }

    /// The calling thread's value, made now if the thread has none.
    func value() throws -> Value {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue() as! Value
        }
        let value = try make()
        pthread_setspecific(key, Unmanaged.passRetained(value as AnyObject).toOpaque())
        return value
    }
}
