import CGitWire
import GitWireCore

extension Delta {
    /// The same as ``Delta/apply(_:to:)``, with the instructions run in C (`cgw_delta_run`): each
    /// copy one `memcpy`, with no reference counting per instruction. Deltas the C code refuses,
    /// and those whose result may be more than twice the base plus the delta (which `apply` makes
    /// without trusting the size given), go to `apply`, which says what is wrong.
    package static func applyNative(_ delta: ArraySlice<UInt8>, to base: ArraySlice<UInt8>) throws(DeltaError)
        -> [UInt8]
    {
        guard delta.count >= minimumSize, let header = try? header(delta), header.baseSize == UInt64(base.count),
            header.resultSize <= UInt64(base.count) &* 2 &+ UInt64(delta.count)
        else { return try apply(delta, to: base) }
        let size = Int(header.resultSize)
        var valid = false
        let result = [UInt8](unsafeUninitializedCapacity: size) { output, initialized in
            delta[header.instructionsStart...].withUnsafeBufferPointer { instructions in
                base.withUnsafeBufferPointer { base in
                    valid =
                        cgw_delta_run(
                            base.baseAddress, base.count, instructions.baseAddress, instructions.count,
                            output.baseAddress, size) != 0
                }
            }
            initialized = valid ? size : 0
        }
        return valid ? result : try apply(delta, to: base)
    }
}
