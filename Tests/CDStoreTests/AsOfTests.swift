import CDBase
import CDStore
import CDTestSupport
import Foundation
import Testing

/// Reading a store as of a commit of its `-wal` (the read-only VFS shows SQLite the log up to
/// it) against `sqlite3` on a copy whose `-wal` is cut after that commit, without its `-shm`:
/// every entity's row count, on every corpus store with a log, over commits spread along it.
@Suite(.temporaryDirectories) struct AsOfTests {
    /// `sqlite3`'s count of each `table`/`Z_ENT` pair on a copy of `store` whose log ends at
    /// `logBytes`; nil when that copy has no `Z_PRIMARYKEY` (the main file alone of a store whose
    /// tables are all in its log).
    static func countsOnACutCopy(_ store: URL, logBytes: Int, entities: [(table: String, ent: Int)]) throws -> [Int]? {
        let cut = try WALCut.copy(of: store, logBytes: logBytes)
        defer { try? FileManager.default.removeItem(at: cut.deletingLastPathComponent()) }
        let tables = try SQLiteShell.run(cut, "SELECT name FROM sqlite_master WHERE type = 'table';").split(separator: "\n").map(String.init)
        guard tables.contains("Z_PRIMARYKEY") else { return nil }
        let sql = entities.map { tables.contains($0.table) ? "SELECT COUNT(*) FROM \($0.table) WHERE Z_ENT = \($0.ent)" : "SELECT -1" }
        return try SQLiteShell.run(cut, sql.joined(separator: ";\n") + ";").split(separator: "\n").compactMap { Int($0) }
    }

    @Test(arguments: Corpus.storesWithLog)
    func countsAsOfACommitAreSQLitesOnACutCopy(_ store: String) throws {
        let copy = try Corpus.copyStore(store)
        let before = try Checksums.of(directory: copy.deletingLastPathComponent())
        let log = try #require(IndependentWAL(try Data(contentsOf: URL(fileURLWithPath: copy.path + "-wal"))))
        let count = log.transactions.count
        let commits = Set([0, count] + Array(stride(from: 1, to: count, by: max(1, count / 8)))).sorted()
        let newest = try StoreInspector.inspect(path: copy.path, counts: true)
        let entities = newest.entities.map { (table: $0.table, ent: $0.ent) }
        for commit in commits {
            let expected = try Self.countsOnACutCopy(copy, logBytes: commit == 0 ? 0 : log.transactions[commit - 1].endOffset, entities: entities)
            guard let expected else {
                #expect(throws: StoreError.self, "\(store) as of \(commit)") { try StoreInspector.inspect(path: copy.path, asOf: commit) }
                continue
            }
            let inspection = try StoreInspector.inspect(path: copy.path, counts: true, asOf: commit)
            let rows = newest.entities.map { entity in
                inspection.entities.first { $0.ent == entity.ent && $0.tableExists }?.rows ?? -1
            }
            #expect(rows == expected, "\(store) as of commit \(commit) of \(count)")
        }
        #expect(try StoreInspector.inspect(path: copy.path, counts: true, asOf: count).entities.map(\.rows) == newest.entities.map(\.rows))
        #expect(try Checksums.of(directory: copy.deletingLastPathComponent()) == before)
    }

    /// A private copy read as of a commit (the copy's `-wal` cut there) reads what the store
    /// read in place as of it does.
    @Test func aPrivateCopyAsOfACommitReadsTheSame() throws {
        let copy = try Corpus.copyStore("osxphotos-clscontactcache-10.15.4/CLSContactCache.sqlite")
        for commit in 2...8 {
            let inPlace = try StoreSnapshot(path: copy.path, asOf: commit)
            let privateCopy = try StoreSnapshot(path: copy.path, keepingThisVersion: true, asOf: commit)
            #expect(inPlace.readsInPlace && !privateCopy.readsInPlace)
            let rows = { (snapshot: StoreSnapshot) in try StoreInspector.inspect(snapshot, counts: true).entities.map(\.rows) }
            #expect(try rows(privateCopy) == rows(inPlace), "as of \(commit)")
        }
    }

    @Test func aCommitPastTheLastIsOneLine() throws {
        let copy = try Corpus.copyStore("osxphotos-clscontactcache-10.15.4/CLSContactCache.sqlite")
        #expect(throws: StoreError.noSuchCommit(path: copy.path + "-wal", requested: 9, commits: 8)) {
            try StoreInspector.inspect(path: copy.path, asOf: 9)
        }
        #expect(
            StoreError.noSuchCommit(path: "X-wal", requested: 9, commits: 8).message
                == "--as-of 9: X-wal holds 8 commits; --as-of takes 0 (the main file alone) to 8")
        let single = try Corpus.copyStore("apple-coredatabooks/CoreDataBooks.sqlite")
        #expect(throws: StoreError.noSuchCommit(path: single.path + "-wal", requested: 1, commits: 0)) {
            try StoreInspector.inspect(path: single.path, asOf: 1)
        }
        #expect(
            try StoreInspector.inspect(path: single.path, counts: true, asOf: 0).entities.map(\.rows)
                == StoreInspector.inspect(path: single.path, counts: true).entities.map(\.rows))
    }
}
