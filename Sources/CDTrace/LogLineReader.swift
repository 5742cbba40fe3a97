import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a log line by line in fixed chunks, so memory stays flat however long the log is: one
/// chunk buffer and at most ``maximumLineLength`` bytes of the line being assembled.
///
/// A line longer than the bound is cut there and the rest of it skipped (a level-3 row dump can
/// be megabytes; the statements a trace reads are far shorter). A last line without its line
/// break (a capture cut off mid-write) is still delivered. With `follow`, the end of a file is
/// not the end of the log: the reader waits for the file to grow (`--follow`).
///
/// One thread reads at a time, so the state touched for every line skips the run-time
/// exclusivity checks (`@exclusivity(unchecked)`).
package final class LogLineReader {
    /// Where the bytes come from.
    package enum Source {
        /// An open file or pipe (standard input, or a log file opened by the caller).
        case descriptor(Int32)
        /// Bytes already in memory (tests, in-process runs).
        case data(Data)
    }

    /// Longest line kept whole: 1 MiB.
    package static let maximumLineLength = 1 << 20
    private static let chunkSize = 1 << 16

    private let source: Source
    private let follow: Bool
    /// Whether the end of a file is waited past (`--follow`).
    package var follows: Bool { follow }
    private let pollInterval: useconds_t
    @exclusivity(unchecked) private var chunk: [UInt8]
    @exclusivity(unchecked) private var chunkStart = 0
    @exclusivity(unchecked) private var chunkEnd = 0
    @exclusivity(unchecked) private var line: [UInt8] = []
    @exclusivity(unchecked) private var overlong = false
    private var dataOffset = 0
    private var finished = false
    /// Whether the chunk holds an escape byte (0x1B), found once per chunk.
    @exclusivity(unchecked) private var chunkHasEscape = true
    /// Whether the line being delivered may hold an escape byte (a colour code to strip): false
    /// only when its chunk holds none, so the parser need not look through each line for one.
    @exclusivity(unchecked) package private(set) var lineMayHoldEscape = true
    /// Lines delivered so far.
    @exclusivity(unchecked) package private(set) var lineCount = 0
    /// Asked while waiting for a followed file to grow: true ends the log there (Ctrl-C).
    package var shouldStop: (() -> Bool)?

    /// `follow` waits at the end of a file for more; `pollInterval` is how long in microseconds.
    package init(source: Source, follow: Bool = false, pollInterval: useconds_t = 200_000) {
        self.source = source
        self.follow = follow
        self.pollInterval = pollInterval
        chunk = [UInt8](repeating: 0, count: Self.chunkSize)
        line.reserveCapacity(1024)
    }

    /// Calls `body` with each line's bytes (without its line break, a trailing carriage return
    /// removed) until the log ends or `body` returns false. The bytes are valid only inside `body`.
    package func forEachLine(_ body: (UnsafeBufferPointer<UInt8>) throws -> Bool) rethrows {
        while true {
            if chunkStart == chunkEnd {
                guard fill() else {
                    if !line.isEmpty || overlong {
                        lineMayHoldEscape = true
                        let keepGoing = try deliver(line[...], body)
                        line.removeAll(keepingCapacity: true)
                        overlong = false
                        if !keepGoing { return }
                    }
                    return
                }
            }
            let keepGoing: Bool = try chunk.withUnsafeBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return false }
                while chunkStart < chunkEnd {
                    let start = base + chunkStart
                    let remaining = chunkEnd - chunkStart
                    if let newline = memchr(start, 0x0A, remaining) {
                        let length = UnsafeRawPointer(newline).assumingMemoryBound(to: UInt8.self) - start
                        chunkStart += length + 1
                        if line.isEmpty && !overlong {
                            lineMayHoldEscape = chunkHasEscape
                            if !(try deliverSpan(UnsafeBufferPointer(start: start, count: length), body)) { return false }
                        } else {
                            append(UnsafeBufferPointer(start: start, count: length))
                            lineMayHoldEscape = true
                            let go = try deliver(line[...], body)
                            line.removeAll(keepingCapacity: true)
                            overlong = false
                            if !go { return false }
                        }
                    } else {
                        append(UnsafeBufferPointer(start: start, count: remaining))
                        chunkStart = chunkEnd
                    }
                }
                return true
            }
            if !keepGoing { return }
        }
    }

    /// Notes whether the chunk just read holds an escape byte.
    private func scanChunkForEscape() {
        chunkHasEscape = chunk.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return true }
            return memchr(base, 0x1B, chunkEnd) != nil
        }
    }

    private func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        let room = Self.maximumLineLength - line.count
        if bytes.count > room {
            line.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[..<(bytes.startIndex + max(room, 0))]))
            overlong = true
        } else {
            line.append(contentsOf: bytes)
        }
    }

    private func deliver(_ bytes: ArraySlice<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) throws -> Bool) rethrows -> Bool {
        try bytes.withUnsafeBufferPointer { try deliverSpan($0, body) }
    }

    private func deliverSpan(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) throws -> Bool) rethrows -> Bool {
        lineCount += 1
        var span = bytes
        if let last = span.last, last == 0x0D { span = UnsafeBufferPointer(rebasing: span.dropLast()) }
        return try body(span)
    }

    /// Refills the chunk; false at the end of the log.
    private func fill() -> Bool {
        guard !finished else { return false }
        chunkStart = 0
        chunkEnd = 0
        switch source {
        case .data(let data):
            guard dataOffset < data.count else {
                finished = true
                return false
            }
            let count = min(Self.chunkSize, data.count - dataOffset)
            chunk.withUnsafeMutableBytes { buffer in
                data.copyBytes(to: buffer.bindMemory(to: UInt8.self).baseAddress!, from: dataOffset..<(dataOffset + count))
            }
            dataOffset += count
            chunkEnd = count
            scanChunkForEscape()
            return true
        case .descriptor(let descriptor):
            while true {
                let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, Self.chunkSize) }
                if count > 0 {
                    chunkEnd = count
                    scanChunkForEscape()
                    return true
                }
                if count < 0 && errno == EINTR { continue }
                if count == 0 && follow && Self.isRegularFile(descriptor) && !(shouldStop?() ?? false) {
                    usleep(pollInterval)
                    continue
                }
                finished = true
                return false
            }
        }
    }

    /// A pipe at its end has no more to give; a file being appended to does.
    private static func isRegularFile(_ descriptor: Int32) -> Bool {
        var status = stat()
        return fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
    }
}
