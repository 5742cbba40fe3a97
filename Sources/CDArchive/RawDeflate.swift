import CZlib
import Foundation

/// Raw DEFLATE (RFC 1951) compression through the system zlib: the format of
/// `Z_MODELCACHE.Z_CONTENT`, which has no zlib header or checksum (docs/format/store-format.md §6).
///
/// `deflateInit2` with `windowBits = -15` selects the raw format; the level is zlib's default,
/// as the exact bytes Core Data produces are not needed, only a stream any raw inflater reads.
/// ``RawInflate/inflate(_:limit:)`` is the inverse.
package enum RawDeflate {
    /// Compresses `data` into one complete raw DEFLATE stream.
    package static func deflate(_ data: Data) throws -> Data {
        var stream = z_stream()
        guard
            deflateInit2_(
                &stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY,
                ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else {
            throw PropertyListError.deflateCannotStart
        }
        defer { deflateEnd(&stream) }
        var input = [UInt8](data)
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let status: Int32 = input.withUnsafeMutableBufferPointer { inBuffer in
            stream.next_in = inBuffer.baseAddress
            stream.avail_in = uInt(inBuffer.count)
            var result: Int32 = Z_OK
            // Z_FINISH is repeated until zlib reports the end: each call fills at most one chunk.
            while result == Z_OK {
                result = chunk.withUnsafeMutableBufferPointer { outBuffer in
                    stream.next_out = outBuffer.baseAddress
                    stream.avail_out = uInt(outBuffer.count)
                    return CZlib.deflate(&stream, Z_FINISH)
                }
                output.append(contentsOf: chunk[0..<(chunk.count - Int(stream.avail_out))])
            }
            return result
        }
        guard status == Z_STREAM_END else { throw PropertyListError.deflateFailed(status: status) }
        return output
    }
}
