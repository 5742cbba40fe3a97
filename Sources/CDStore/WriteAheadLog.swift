import Foundation

/// A store's `-wal` read as a history: its header, then every commit in order, then what SQLite's
/// recovery leaves out (docs/format/store-format.md §10b, from SQLite's file-format document, "The
/// Write-Ahead Log").
///
/// Frames count while they carry the header's salts and the running checksum holds, as in
/// SQLite's recovery; the valid frames up to the last commit frame are the commits. Past them:
/// valid frames of a transaction that never committed, then frames of an earlier generation of
/// the log (other salts, left behind when the log started again from its beginning), frames after
/// a checksum that fails, and a last frame cut short. The file is read one frame at a time: memory
/// holds one page and the list of commits, whatever the log's size.
package struct WriteAheadLog: Sendable, Equatable {
    /// The 32-byte header.
    package struct Header: Sendable, Equatable {
        /// Magic `0x377f0683`: the checksums read the data as big-endian 32-bit words
        /// (`0x377f0682`: little-endian).
        package var bigEndianChecksums: Bool
        package var formatVersion: UInt32
        package var pageSize: Int
        package var checkpointSequence: UInt32
        package var salts: [UInt32]
    }

    /// One transaction of the log: its frames, the pages they hold and the database's size after it.
    package struct Commit: Sendable, Equatable {
        /// 1 for the log's first commit.
        package var number: Int
        /// The index of its first frame, 1-based.
        package var firstFrame: Int
        package var frames: Int
        /// The pages its frames hold, each once, ascending.
        package var pages: [Int]
        /// The database's size in pages after the commit (its commit frame's header).
        package var databasePages: Int
        /// The log's length through this commit's last frame: what SQLite reads of it for the
        /// store as it stood after this commit.
        package var logBytes: Int64
    }

    package var header: Header
    package var commits: [Commit]
    /// Valid frames after the last commit frame: a transaction under way or abandoned.
    package var uncommittedFrames: Int
    /// Whole frames past the valid ones whose salts are not the header's: an earlier generation.
    package var earlierGenerationFrames: Int
    /// The index (1-based) of a frame with the header's salts whose checksum fails; SQLite uses
    /// the frames before it only.
    package var badChecksumFrame: Int?
    /// Frames with the header's salts past the valid ones (after ``badChecksumFrame``), which
    /// SQLite ignores.
    package var framesAfterBadChecksum: Int
    /// Bytes of a last frame cut short (the file does not end on a frame boundary).
    package var tornBytes: Int
    /// The file's size in bytes.
    package var fileBytes: Int64

    /// The log of a store that has none: no commit, so every page is the main file's
    /// (``LogPages`` reads such a store's pages as they stand).
    package static func none(pageSize: Int) -> WriteAheadLog {
        WriteAheadLog(
            header: Header(bigEndianChecksums: false, formatVersion: 3_007_000, pageSize: pageSize, checkpointSequence: 0, salts: [0, 0]),
            commits: [], uncommittedFrames: 0, earlierGenerationFrames: 0, badChecksumFrame: nil, framesAfterBadChecksum: 0, tornBytes: 0,
            fileBytes: 0)
    }

    /// Bytes of one frame: its 24-byte header and a page.
    package var frameBytes: Int { 24 + header.pageSize }

    /// Reads the log at `url`; nil when the file does not exist or is empty (no log: the store is
    /// its main file). A file too short for a header, with another magic number, format version
    /// or page size, or a header whose checksum fails, throws ``StoreError/badWAL(path:reason:)``.
    package static func read(_ url: URL) throws -> WriteAheadLog? {
        let path = url.path
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw StoreError.system(path: path, description: error.localizedDescription)
        }
        defer { try? handle.close() }
        let fileBytes: Int64
        do {
            fileBytes = Int64(try handle.seekToEnd())
            try handle.seek(toOffset: 0)
        } catch {
            throw StoreError.system(path: path, description: error.localizedDescription)
        }
        if fileBytes == 0 { return nil }
        func read(_ count: Int) throws -> [UInt8] {
            do {
                return [UInt8](try handle.read(upToCount: count) ?? Data())
            } catch {
                throw StoreError.system(path: path, description: error.localizedDescription)
            }
        }
        let head = try read(32)
        guard head.count == 32 else { throw StoreError.badWAL(path: path, reason: "\(fileBytes) bytes, shorter than its 32-byte header") }
        let magic = bigEndian32(head, 0)
        guard magic == 0x377F_0682 || magic == 0x377F_0683 else {
            throw StoreError.badWAL(path: path, reason: "no write-ahead log magic number (0x377f0682 or 0x377f0683)")
        }
        let header = Header(
            bigEndianChecksums: magic == 0x377F_0683, formatVersion: bigEndian32(head, 4), pageSize: Int(bigEndian32(head, 8)),
            checkpointSequence: bigEndian32(head, 12), salts: [bigEndian32(head, 16), bigEndian32(head, 20)])
        guard header.formatVersion == 3_007_000 else {
            throw StoreError.badWAL(path: path, reason: "format version \(header.formatVersion), not 3007000")
        }
        guard header.pageSize >= 512, header.pageSize <= 65536, header.pageSize & (header.pageSize - 1) == 0 else {
            throw StoreError.badWAL(path: path, reason: "page size \(header.pageSize) is not a power of two from 512 to 65536")
        }
        var checksum = Checksum(bigEndian: header.bigEndianChecksums)
        checksum.add(head[0..<24])
        guard checksum.sums == (bigEndian32(head, 24), bigEndian32(head, 28)) else {
            throw StoreError.badWAL(path: path, reason: "the header's checksum does not match")
        }

        var log = WriteAheadLog(
            header: header, commits: [], uncommittedFrames: 0, earlierGenerationFrames: 0, badChecksumFrame: nil,
            framesAfterBadChecksum: 0, tornBytes: 0, fileBytes: fileBytes)
        var pending: Set<Int> = [], pendingFirst = 1, pendingCount = 0
        var valid = true
        var index = 0
        while true {
            let frame = try read(log.frameBytes)
            if frame.isEmpty { break }
            guard frame.count == log.frameBytes else {
                log.tornBytes = frame.count
                break
            }
            index += 1
            let hasHeaderSalts = bigEndian32(frame, 8) == header.salts[0] && bigEndian32(frame, 12) == header.salts[1]
            if valid {
                if hasHeaderSalts {
                    checksum.add(frame[0..<8])
                    checksum.add(frame[24...])
                    if checksum.sums == (bigEndian32(frame, 16), bigEndian32(frame, 20)) {
                        if pendingCount == 0 { pendingFirst = index }
                        pending.insert(Int(bigEndian32(frame, 0)))
                        pendingCount += 1
                        let databasePages = Int(bigEndian32(frame, 4))
                        if databasePages != 0 {
                            log.commits.append(
                                Commit(
                                    number: log.commits.count + 1, firstFrame: pendingFirst, frames: pendingCount, pages: pending.sorted(),
                                    databasePages: databasePages, logBytes: 32 + Int64(index) * Int64(log.frameBytes)))
                            pending = []
                            pendingCount = 0
                        }
                        continue
                    }
                    log.badChecksumFrame = index
                } else {
                    log.earlierGenerationFrames += 1
                }
                valid = false
                continue
            }
            if hasHeaderSalts {
                log.framesAfterBadChecksum += 1
            } else {
                log.earlierGenerationFrames += 1
            }
        }
        log.uncommittedFrames = pendingCount
        return log
    }

    /// The big-endian 32-bit number at `offset`.
    private static func bigEndian32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[offset + $1]) }
    }

    /// SQLite's running checksum: two 32-bit sums over pairs of words, in the byte order the
    /// magic number names (`s1 += x0 + s2; s2 += x1 + s1`, modulo 2^32).
    private struct Checksum {
        let bigEndian: Bool
        var first: UInt32 = 0
        var second: UInt32 = 0

        init(bigEndian: Bool) { self.bigEndian = bigEndian }

        var sums: (UInt32, UInt32) { (first, second) }

        mutating func add(_ bytes: ArraySlice<UInt8>) {
            bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset + 8 <= raw.count {
                    first = first &+ word(raw, offset) &+ second
                    second = second &+ word(raw, offset + 4) &+ first
                    offset += 8
                }
            }
        }

        private func word(_ raw: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
            let value = raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
            return bigEndian ? UInt32(bigEndian: value) : UInt32(littleEndian: value)
        }
    }
}
