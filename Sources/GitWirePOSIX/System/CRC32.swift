import CGitWire

/// CRC-32 (zlib's) of `bytes`, continuing from `crc`, with libdeflate's carry-less multiply
/// (about twice zlib's speed here: 12 ms for 198 MB against 27 ms).
package func fastCRC32(_ bytes: ArraySlice<UInt8>, continuing crc: UInt32 = 0) -> UInt32 {
    bytes.withUnsafeBytes { UInt32(libdeflate_crc32(crc, $0.baseAddress, $0.count)) }
}
