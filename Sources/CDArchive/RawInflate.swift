import CZlib
import Foundation

/// Raw DEFLATE (RFC 1951) decompression through the system zlib.
///
/// `Z_MODELCACHE.Z_CONTENT` has no zlib header, so `inflateInit2` is called with
/// `windowBits = -15` (docs/format/store-format.md §6).
package enum RawInflate {
    /// Inflates `data`; throws when the stream is corrupt, truncated, or would exceed `limit` bytes.
    package static func inflate(_ data: Data, limit: Int = 256 << 20) throws -> Data {
        var stream = z_stream()
        guard inflateInit2_(&stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw PropertyListError.inflateCannotStart
        }
        defer { inflateEnd(&stream) }
        var input = [UInt8](data)
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let status: Int32 = input.withUnsafeMutableBufferPointer { inBuffer in
            stream.next_in = inBuffer.baseAddress
            stream.avail_in = uInt(inBuffer.count)
            var result: Int32 = Z_OK
            repeat {
                result = chunk.withUnsafeMutableBufferPointer { outBuffer in
                    stream.next_out = outBuffer.baseAddress
                    stream.avail_out = uInt(outBuffer.count)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunk.count - Int(stream.avail_out)
                output.append(contentsOf: chunk[0..<produced])
                if output.count > limit { return Z_MEM_ERROR }
                if result == Z_BUF_ERROR && stream.avail_in == 0 { return Z_DATA_ERROR }
            } while result == Z_OK || (result == Z_BUF_ERROR && stream.avail_out == 0)
            return result
        }
        guard status == Z_STREAM_END else {
            throw (status == Z_MEM_ERROR ? PropertyListError.compressedTooLarge : PropertyListError.compressedCorrupt)
        }
        return output
    }
}
