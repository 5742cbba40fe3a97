import Foundation

/// The first 100 bytes of a SQLite database file, read without SQLite.
///
/// Reading the header first lets cdstore tell "not SQLite", "truncated" and "WAL mode" apart
/// with a precise message before any connection exists.
public struct SQLiteHeader: Sendable {
    /// The 16 bytes every SQLite 3 database file starts with.
    public static let magic = Array("SQLite format 3\u{0}".utf8)

    /// Bytes per page (bytes 16–17; the stored value 1 means 65536).
    public let pageSize: Int
    /// Bytes 18–19: 1 = rollback journal, 2 = WAL (store-format.md §1).
    public let writeVersion: Int
    /// Bytes 18–19's second byte, with the same meaning as `writeVersion`.
    public let readVersion: Int
    /// The in-header database size in pages; only meaningful when `isPageCountValid`.
    public let pageCount: Int
    /// Whether SQLite would trust `pageCount`: the change counter equals the version-valid-for number.
    public let isPageCountValid: Bool
    /// Bytes 56–59: 1 = UTF-8, 2 = UTF-16le, 3 = UTF-16be (0 in a file with no schema yet).
    public let textEncoding: Int

    /// The header marks the database as in WAL mode, so its content may live in the `-wal` file.
    public var isWALMode: Bool { writeVersion == 2 || readVersion == 2 }

    /// Parses `bytes` (at least 100 bytes of a file); `nil` when the magic string is missing.
    public init?(_ bytes: [UInt8]) {
        guard bytes.count >= 100, Array(bytes[0..<16]) == Self.magic else { return nil }
        func be(_ offset: Int, _ count: Int) -> Int {
            (0..<count).reduce(0) { $0 << 8 | Int(bytes[offset + $1]) }
        }
        let rawPageSize = be(16, 2)
        pageSize = rawPageSize == 1 ? 65536 : rawPageSize
        writeVersion = Int(bytes[18])
        readVersion = Int(bytes[19])
        pageCount = be(28, 4)
        // SQLite trusts the in-header size only when the change counter equals the
        // "version-valid-for" number.
        isPageCountValid = be(24, 4) == be(92, 4) && pageCount > 0
        textEncoding = be(56, 4)
    }

    /// Reads the header of the file at `url`.
    public static func read(_ url: URL) throws -> SQLiteHeader? {
        guard let handle = try? FileHandle(forReadingFrom: url) else {
            throw StoreError.permissionDenied(path: url.path)
        }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: 100)) ?? Data()
        return SQLiteHeader([UInt8](data))
    }
}

/// What the `-wal` file holds (store-format.md §10).
public struct WALSummary: Sendable, Codable, Equatable {
    /// Frames of the current WAL generation up to the last commit: changes not yet
    /// checkpointed into the main file.
    public let committedFrames: Int
    /// Frames after the last commit (an interrupted transaction); SQLite ignores them.
    public let uncommittedFrames: Int
    /// Bytes per page, from the WAL header.
    public let pageSize: Int

    /// Reads the WAL header and frame headers; `nil` for an empty or unreadable file.
    public static func read(_ url: URL) -> WALSummary? {
        guard let data = try? Data(contentsOf: url), data.count >= 32 else { return nil }
        let bytes = [UInt8](data)
        func be(_ offset: Int) -> Int {
            (0..<4).reduce(0) { $0 << 8 | Int(bytes[offset + $1]) }
        }
        let magic = be(0)
        guard magic == 0x377F0682 || magic == 0x377F0683 else { return nil }
        let pageSize = be(8)
        guard pageSize >= 512 else { return nil }
        let salt1 = be(16), salt2 = be(20)
        var frames = 0
        var lastCommit = 0
        var offset = 32
        while offset + 24 + pageSize <= bytes.count {
            guard be(offset + 8) == salt1, be(offset + 12) == salt2 else { break }
            frames += 1
            if be(offset + 4) != 0 { lastCommit = frames }
            offset += 24 + pageSize
        }
        return WALSummary(committedFrames: lastCommit, uncommittedFrames: frames - lastCommit, pageSize: pageSize)
    }
}
