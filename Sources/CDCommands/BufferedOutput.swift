import CDRendering

/// Collects output in a 64 KiB buffer and writes it with one call per buffer, so dumping a
/// million objects costs a few hundred writes instead of a million.
///
/// Writes throw once nobody reads the output any more (``CommandOutput/Closed``), which stops
/// the command instead of letting it read a whole store for nothing.
final class BufferedOutput: ObjectPrinterOutput {
    private let destination: CommandOutput
    private var buffer: [UInt8] = []
    /// The size of one write.
    let limit = 64 * 1024
    var chunkSize: Int { limit }

    init(to destination: CommandOutput) {
        self.destination = destination
        buffer.reserveCapacity(limit + 4096)
    }

    func write(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= limit { try flush() }
    }

    /// Moves the bytes of `bytes` into the output, leaving it empty for reuse. A full write's
    /// worth goes out directly, without passing through the buffer.
    func write(_ bytes: inout OutputBuffer) throws {
        try bytes.withUnsafeBytes { bytes in
            if buffer.isEmpty && bytes.count >= limit {
                try destination.write(bytes)
            } else {
                buffer.append(contentsOf: bytes)
                if buffer.count >= limit { try flush() }
            }
        }
        bytes.removeAll()
    }

    func flush() throws {
        guard !buffer.isEmpty else { return }
        try buffer.withUnsafeBytes { try destination.write($0) }
        buffer.removeAll(keepingCapacity: true)
    }
}
