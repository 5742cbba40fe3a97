import CDRendering
import CDStore
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Collects output in a 64 KiB buffer and writes it with one call per buffer, so dumping a
/// million objects costs a few hundred writes instead of a million.
final class BufferedOutput {
    private var buffer: [UInt8] = []
    /// The size of one write.
    let limit = 64 * 1024

    init() {
        buffer.reserveCapacity(limit + 4096)
    }

    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= limit { flush() }
    }

    /// Moves the bytes of `bytes` into the output, leaving it empty for reuse. A full write's
    /// worth goes out directly, without passing through the buffer.
    func write(_ bytes: inout ByteBuffer) {
        bytes.withUnsafeBytes { bytes in
            if buffer.isEmpty && bytes.count >= limit {
                Self.writeAll(bytes)
            } else {
                buffer.append(contentsOf: bytes)
                if buffer.count >= limit { flush() }
            }
        }
        bytes.removeAll()
    }

    func flush() {
        guard !buffer.isEmpty else { return }
        buffer.withUnsafeBytes { Self.writeAll($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    private static func writeAll(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count {
            let written = Foundation.write(STDOUT_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
            // A closed pipe (`| head`) ends the output quietly, as other tools do.
            guard written > 0 else { PrivateCopyRegistry.exitAfterClosedOutput() }
            offset += written
        }
    }
}
