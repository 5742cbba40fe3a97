import Foundation

/// A second reader of SQLite's write-ahead log, written from the file-format document ("The
/// Write-Ahead Log": header, frame headers, cumulative checksums, commit frames) and sharing no
/// code with the product's `WriteAheadLog`: the tests compare the two on every corpus `-wal`.
/// It reads the whole file at once and walks it with plain offsets.
public struct IndependentWAL: Equatable {
    /// One transaction: the index of its first frame (1-based), its frames, the pages they hold
    /// and the database's size after it.
    public struct Transaction: Equatable {
        public var firstFrame: Int
        public var frameCount: Int
        public var pages: Set<Int>
        public var databaseSize: Int
        /// Bytes of the log through its last frame.
        public var endOffset: Int
    }

    public var pageSize: Int
    public var sequence: UInt32
    public var salt1: UInt32
    public var salt2: UInt32
    public var bigEndian: Bool
    public var transactions: [Transaction] = []
    /// Valid frames after the last commit frame.
    public var openFrames = 0
    /// Whole frames past the valid ones, by whether their salts are the header's.
    public var staleFrames = 0
    public var sameSaltInvalidFrames = 0
    /// The first frame with the header's salts whose checksum fails.
    public var firstBadFrame: Int?
    /// Bytes after the last whole frame.
    public var partialBytes = 0

    /// Parses `data`, a whole `-wal`; nil when its header is not one SQLite accepts.
    public init?(_ data: Data) {
        let bytes = [UInt8](data)
        func u32(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
        }
        guard bytes.count >= 32, u32(0) & 0xFFFF_FFFE == 0x377F_0682, u32(4) == 3_007_000 else { return nil }
        bigEndian = u32(0) & 1 == 1
        pageSize = Int(u32(8))
        sequence = u32(12)
        salt1 = u32(16)
        salt2 = u32(20)
        let bigEndian = bigEndian
        var s0: UInt32 = 0, s1: UInt32 = 0
        func checksum(_ from: Int, _ length: Int) {
            var i = from
            while i < from + length {
                var x0 = u32(i), x1 = u32(i + 4)
                if !bigEndian {
                    x0 = x0.byteSwapped
                    x1 = x1.byteSwapped
                }
                s0 = s0 &+ x0 &+ s1
                s1 = s1 &+ x1 &+ s0
                i += 8
            }
        }
        checksum(0, 24)
        guard s0 == u32(24), s1 == u32(28) else { return nil }
        let frameSize = 24 + pageSize
        let wholeFrames = (bytes.count - 32) / frameSize
        partialBytes = (bytes.count - 32) % frameSize
        var stillValid = true
        var current = Transaction(firstFrame: 1, frameCount: 0, pages: [], databaseSize: 0, endOffset: 0)
        for n in 1...max(1, wholeFrames) where wholeFrames > 0 {
            let at = 32 + (n - 1) * frameSize
            let saltsMatch = u32(at + 8) == salt1 && u32(at + 12) == salt2
            if stillValid && saltsMatch {
                checksum(at, 8)
                checksum(at + 24, pageSize)
                if s0 == u32(at + 16) && s1 == u32(at + 20) {
                    if current.frameCount == 0 { current.firstFrame = n }
                    current.frameCount += 1
                    current.pages.insert(Int(u32(at)))
                    if u32(at + 4) > 0 {
                        current.databaseSize = Int(u32(at + 4))
                        current.endOffset = at + frameSize
                        transactions.append(current)
                        current = Transaction(firstFrame: n + 1, frameCount: 0, pages: [], databaseSize: 0, endOffset: 0)
                    }
                    continue
                }
                firstBadFrame = n
                stillValid = false
                continue
            }
            stillValid = false
            if saltsMatch { sameSaltInvalidFrames += 1 } else { staleFrames += 1 }
        }
        openFrames = current.frameCount
    }
}

extension Corpus {
    /// The corpus stores whose `-wal` holds frames (store-format.md §10b counts them), by the
    /// main file's path relative to ``root``; `WALReportTests` checks the list against the tree.
    public static let storesWithLog = [
        "failedbankcd-seed/2013-12-12-wal/CoreDataTutorial2.sqlite",
        "osxphotos-clscontactcache-10.15.4/CLSContactCache.sqlite",
        "osxphotos-clslocationcache-10.15.1/CLSLocationCache.sqlite",
        "osxphotos-pgcurationcache-10.15.1/PGCurationCache.sqlite.sqlite",
        "osxphotos-photos-10.15.4/Photos.sqlite",
        "osxphotos-photos-10.16.0/Photos.sqlite",
        "osxphotos-photos-12.0.1/Photos.sqlite",
        "osxphotos-photos-14.6.0/Photos.sqlite",
        "osxphotos-photos-15.4.1/Photos.sqlite",
        "wibosco-migration/CoreDataMigration_Example_WAL.sqlite",
    ]
}

/// Copies of a store whose `-wal` is cut after a commit, without the `-shm` (SQLite rebuilds its
/// index from the log): the store as it stood after that commit, by SQLite's own recovery
/// (store-format.md §10b), for checking cdstore's reads `--as-of` a commit.
public enum WALCut {
    /// A copy of `store` in a fresh temporary folder with the first `logBytes` bytes of its log.
    public static func copy(of store: URL, logBytes: Int) throws -> URL {
        let cut = try TemporaryDirectory.make().appendingPathComponent(store.lastPathComponent)
        try FileManager.default.copyItem(at: store, to: cut)
        try Data(contentsOf: URL(fileURLWithPath: store.path + "-wal")).prefix(logBytes).write(to: URL(fileURLWithPath: cut.path + "-wal"))
        return cut
    }
}
