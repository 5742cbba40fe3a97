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
    private let limit = 64 * 1024

    init() {
        buffer.reserveCapacity(limit + 4096)
    }

    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= limit { flush() }
    }

    /// Moves the bytes of `bytes` into the output, leaving it empty for reuse.
    func write(_ bytes: inout [UInt8]) {
        buffer.append(contentsOf: bytes)
        bytes.removeAll(keepingCapacity: true)
        if buffer.count >= limit { flush() }
    }

    func flush() {
        guard !buffer.isEmpty else { return }
        buffer.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Foundation.write(STDOUT_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
                // A closed pipe (`| head`) ends the output quietly, as other tools do.
                guard written > 0 else { exit(0) }
                offset += written
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
