import CDBase
import CDStore
import CDTestSupport
import CDWAL
import Foundation
import GRDB
import Testing

/// `wal` against an independent reader of the log (``IndependentWAL``) on every corpus store with
/// a `-wal`, each commit's tables against SQLite's `dbstat` on a copy cut after that commit, and
/// generated logs with an unfinished transaction, a failing checksum, a torn frame and an
/// earlier generation.
@Suite(.temporaryDirectories) struct WALReportTests {
    @Test func theListIsEveryCorpusStoreWithALog() throws {
        let found = Corpus.files(endingWith: "-wal").filter { log in
            let attributes = try? FileManager.default.attributesOfItem(atPath: Corpus.url(log).path)
            return attributes?[.type] as? FileAttributeType == .typeRegular && ((attributes?[.size] as? NSNumber)?.intValue ?? 0) > 0
        }
        #expect(found.map { String($0.dropLast(4)) } == Corpus.storesWithLog)
    }

    /// Every figure of the report equals the independent reader's, and each commit's tables are
    /// what `dbstat` says of the pages it wrote, on a copy whose log is cut after it.
    @Test(arguments: Corpus.storesWithLog)
    func commitsMatchAnIndependentReader(_ store: String) throws {
        let copy = try Corpus.copyStore(store)
        let before = try Checksums.of(directory: copy.deletingLastPathComponent())
        let report = try WALReport.make(storePath: copy.path)
        let log = try #require(IndependentWAL(try Data(contentsOf: URL(fileURLWithPath: copy.path + "-wal"))))
        #expect(report.pageSize == log.pageSize)
        #expect(report.checkpointSequence == log.sequence)
        #expect(report.salts == [log.salt1, log.salt2])
        #expect(report.checksumByteOrder == (log.bigEndian ? "big-endian" : "little-endian"))
        #expect(report.commits.map(\.number) == Array(1...log.transactions.count))
        #expect(report.commits.map(\.firstFrame) == log.transactions.map(\.firstFrame))
        #expect(report.commits.map(\.frames) == log.transactions.map(\.frameCount))
        #expect(report.commits.map(\.pages) == log.transactions.map { $0.pages.sorted() })
        #expect(report.commits.map(\.databasePages) == log.transactions.map(\.databaseSize))
        #expect(report.uncommittedFrames == log.openFrames)
        #expect(report.earlierGenerationFrames == log.staleFrames)
        #expect(report.badChecksumFrame == log.firstBadFrame)
        #expect(report.tornBytes == log.partialBytes)
        #expect(report.commits.allSatisfy { $0.tables != nil })
        // Tables of a sample of commits (all of a short log), from a copy cut after each.
        let transactions = log.transactions
        let sample = transactions.count <= 12 ? Array(transactions.indices) : Array(stride(from: 0, to: transactions.count, by: transactions.count / 10))
        for index in sample {
            let owners = try Self.ownersOnACutCopy(of: copy, logBytes: transactions[index].endOffset, pages: transactions[index].pages)
            #expect(report.commits[index].tables == Set(owners.values).sorted(), "\(store) commit \(index + 1)")
            #expect(report.commits[index].freePages == transactions[index].pages.count - owners.count, "\(store) commit \(index + 1)")
        }
        #expect(try Checksums.of(directory: copy.deletingLastPathComponent()) == before)
        // Entities are named where the store has its model cache (all but the 2013 store).
        let hasModelCache = try SQLiteShell.run(copy, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'Z_MODELCACHE'") == "1\n"
        #expect(report.commits.allSatisfy { ($0.entities != nil) == hasModelCache })
        #expect(hasModelCache == (store != Corpus.storesWithLog[0]))
    }

    /// `dbstat` on a copy of the main file beside the log's first `logBytes` bytes, without a
    /// `-shm` (SQLite rebuilds its index from the log): each page's table (an index's table).
    static func ownersOnACutCopy(of store: URL, logBytes: Int, pages: Set<Int>) throws -> [Int: String] {
        let cut = try WALCut.copy(of: store, logBytes: logBytes)
        defer { try? FileManager.default.removeItem(at: cut.deletingLastPathComponent()) }
        let database = try DatabaseQueue(path: cut.path)
        defer { try? database.close() }
        return try database.read { db in
            let tableOf = Dictionary(
                try Row.fetchAll(db, sql: "SELECT name, tbl_name FROM sqlite_master").map { ($0[0] as String, $0[1] as String) },
                uniquingKeysWith: { a, _ in a })
            var owners: [Int: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT name, pageno FROM dbstat") where pages.contains(row[1]) {
                owners[row[1]] = tableOf[row[0]] ?? row[0]
            }
            return owners
        }
    }

    /// A WAL store of many small commits, written by SQLite with the log kept (no checkpoint):
    /// the main file holds no table, every save is one commit.
    static func writeLog(commits: Int, in folder: URL, pageSize: Int = 4096) throws -> (store: URL, log: Data) {
        let store = folder.appendingPathComponent("Generated-\(pageSize).sqlite")
        let writer = try DatabaseQueue(path: store.path)
        try writer.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA page_size = \(pageSize); PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0")
            try db.execute(sql: "CREATE TABLE ZITEM (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR, ZDATA BLOB)")
        }
        for n in 0..<commits {
            try writer.write { db in
                try db.execute(sql: "INSERT INTO ZITEM (Z_ENT, Z_OPT, ZNAME, ZDATA) VALUES (1, 1, ?, zeroblob(?))", arguments: ["item \(n)", n * 700])
            }
        }
        let log = try Data(contentsOf: URL(fileURLWithPath: store.path + "-wal"))
        let copy = folder.appendingPathComponent("Kept-\(pageSize).sqlite")
        try FileManager.default.copyItem(at: store, to: copy)
        try log.write(to: URL(fileURLWithPath: copy.path + "-wal"))
        try writer.close()
        return (copy, log)
    }

    @Test func whatRecoveryLeavesOutIsReported() throws {
        let folder = try TemporaryDirectory.make()
        let (store, log) = try Self.writeLog(commits: 12, in: folder)
        let wal = URL(fileURLWithPath: store.path + "-wal")
        let whole = try WALReport.make(storePath: store.path)
        let independent = try #require(IndependentWAL(log))
        #expect(whole.commits.count == independent.transactions.count)
        #expect(whole.commits.count >= 13)
        #expect(whole.mainFileEmpty)
        #expect(whole.uncommittedFrames == 0 && whole.tornBytes == 0 && whole.badChecksumFrame == nil && whole.earlierGenerationFrames == 0)
        // Every commit that grows the file writes page 1, whose header holds the size.
        #expect(whole.commits.last?.tables == ["ZITEM", "sqlite_schema"])
        let frame = 24 + whole.pageSize
        // Cut inside the last commit, which has more than one frame: its frames are uncommitted.
        let last = try #require(whole.commits.last)
        #expect(last.frames > 1)
        try log.prefix(32 + (last.firstFrame - 1 + last.frames - 1) * frame).write(to: wal)
        let open = try WALReport.make(storePath: store.path)
        #expect(open.commits.count == whole.commits.count - 1)
        #expect(open.uncommittedFrames == last.frames - 1)
        // Half a frame more: a torn frame.
        try log.prefix(32 + (last.firstFrame - 1 + last.frames - 1) * frame + frame / 2).write(to: wal)
        #expect(try WALReport.make(storePath: store.path).tornBytes == frame / 2)
        // A byte changed in the page of commit 5's first frame: SQLite stops before it.
        let fifth = whole.commits[4]
        var damaged = log
        damaged[32 + (fifth.firstFrame - 1) * frame + 24 + 100] ^= 0xFF
        try damaged.write(to: wal)
        let broken = try WALReport.make(storePath: store.path)
        let brokenIndependent = try #require(IndependentWAL(damaged))
        #expect(broken.commits.count == 4)
        #expect(broken.badChecksumFrame == fifth.firstFrame)
        #expect(broken.framesAfterBadChecksum == brokenIndependent.sameSaltInvalidFrames)
        #expect(broken.framesAfterBadChecksum == (log.count - 32) / frame - fifth.firstFrame)
        // The same frames under other salts: an earlier generation, as a restarted log leaves it.
        var restarted = log
        for index in 0..<((log.count - 32) / frame) where index >= 3 {
            restarted[32 + index * frame + 8] ^= 0x01
        }
        try restarted.write(to: wal)
        let older = try WALReport.make(storePath: store.path)
        #expect(older.earlierGenerationFrames == (log.count - 32) / frame - 3)
        #expect(older.earlierGenerationFrames == IndependentWAL(restarted)?.staleFrames)
    }

    /// The text of a short log with a model cache, against its golden file.
    @Test func textOfAShortLog() throws {
        let copy = try Corpus.copyStore("osxphotos-clscontactcache-10.15.4/CLSContactCache.sqlite")
        let text = WALText.render(try WALReport.make(storePath: copy.path)).replacingOccurrences(of: copy.path, with: "CLSContactCache.sqlite")
        #expect(text == (try Golden.expected("wal/CLSContactCache.txt", actual: text)))
    }

    @Test func badLogsGiveOneLine() throws {
        let folder = try TemporaryDirectory.make()
        let (store, log) = try Self.writeLog(commits: 2, in: folder)
        let wal = URL(fileURLWithPath: store.path + "-wal")
        func message(_ data: Data?) -> String? {
            if let data { try? data.write(to: wal) } else { try? FileManager.default.removeItem(at: wal) }
            do {
                _ = try WALReport.make(storePath: store.path)
                return nil
            } catch let error as UserFacingError {
                return error.message
            } catch {
                return "\(error)"
            }
        }
        #expect(message(log.prefix(20)) == "\(wal.path) is not a write-ahead log SQLite would read: 20 bytes, shorter than its 32-byte header")
        #expect(message(Data(repeating: 7, count: 5000))?.hasSuffix("no write-ahead log magic number (0x377f0682 or 0x377f0683)") == true)
        var badHeader = log
        badHeader[30] ^= 1
        #expect(message(badHeader)?.hasSuffix("the header's checksum does not match") == true)
        #expect(message(nil) == "\(store.path) has no write-ahead log (no Kept-4096.sqlite-wal, or an empty one): every commit is in the main file")
        #expect(message(Data()) == message(nil))
        let (_, otherLog) = try Self.writeLog(commits: 1, in: folder, pageSize: 1024)
        #expect(
            message(otherLog)
                == "\(wal.path) is not a write-ahead log SQLite would read: its page size 1024 is not the store's 4096: it is the log of another database")
    }
}
