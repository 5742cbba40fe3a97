import CDMaintenance
import CDStore
import CDTestSupport
import Foundation
import GRDB
import Testing

@testable import CDWAL

/// `wal --recovered` on stores with a known history of every row ever written: it finds the
/// deleted rows (in pages freed, in frames of an earlier generation of the log) and nothing that
/// never existed or is still live; with `secure_delete` on it finds nothing.
@Suite(.temporaryDirectories) struct RecoveredRowsTests {
    /// A copy of the Articles sample in WAL mode, `secure_delete` as given: 300 articles
    /// inserted and then retitled, 120 more inserted, a checkpoint (RESTART leaves those frames
    /// behind as an earlier generation once the log starts again; TRUNCATE empties the log),
    /// then all 420 deleted in one commit. Returns the kept copy (main file and -wal taken while
    /// the writer is open), every title each deleted Z_PK ever had, and the live Z_PKs.
    static func write(secureDelete: Bool, restartLog: Bool) throws -> (store: URL, deleted: [Int64: Set<String>], live: Set<Int64>) {
        let source = try TemporaryDirectory.make().appendingPathComponent("Articles.sqlite")
        try FileManager.default.copyItem(at: Corpus.repositoryRoot.appendingPathComponent("Samples/Stores/Articles.sqlite"), to: source)
        let writer = try DatabaseQueue(path: source.path)
        try writer.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = DELETE; PRAGMA auto_vacuum = 0; VACUUM")
            try db.execute(sql: "PRAGMA secure_delete = \(secureDelete ? "ON" : "OFF"); PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0")
            for name in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger'") {
                try db.execute(sql: "DROP TRIGGER \(name.quotedDatabaseIdentifier)")
            }
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
        let ent = try writer.read { db in try Int.fetchOne(db, sql: "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Article'") } ?? 0
        var titles: [Int64: Set<String>] = [:]
        /// Inserts `count` articles titled `prefix-n` (bodies long enough to fill many pages).
        func insert(_ prefix: String, _ count: Int) throws -> [Int64] {
            try writer.write { db in
                // Core Data never reuses a Z_PK: new objects start past Z_MAX.
                let first = (try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [ent]) ?? 0) + 1
                for n in 0..<Int64(count) {
                    let title = "\(prefix)-\(n)"
                    try db.execute(
                        sql: "INSERT INTO ZARTICLE (Z_PK, Z_ENT, Z_OPT, ZTITLE, ZBODY, ZPUBLISHED_AT) VALUES (?, ?, 1, ?, ?, ?)",
                        arguments: [first + n, ent, title, String(repeating: "body of \(title) ", count: 12), 600_000_000.5 + Double(n)])
                    titles[first + n, default: []].insert(title)
                }
                try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", arguments: [first + Int64(count) - 1, ent])
                return (0..<Int64(count)).map { first + $0 }
            }
        }
        let doomed = try insert("doomed", 300)
        try writer.write { db in
            for key in doomed {
                let title = (try String.fetchOne(db, sql: "SELECT ZTITLE FROM ZARTICLE WHERE Z_PK = ?", arguments: [key]) ?? "") + "-v2"
                try db.execute(sql: "UPDATE ZARTICLE SET ZTITLE = ?, Z_OPT = Z_OPT + 1 WHERE Z_PK = ?", arguments: [title, key])
                titles[key, default: []].insert(title)
            }
        }
        let second = try insert("second", 120)
        try writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(\(restartLog ? "RESTART" : "TRUNCATE"))") }
        try writer.write { db in
            for key in doomed + second { try db.execute(sql: "DELETE FROM ZARTICLE WHERE Z_PK = ?", arguments: [key]) }
        }
        let kept = try TemporaryDirectory.make().appendingPathComponent("Articles.sqlite")
        try FileManager.default.copyItem(at: source, to: kept)
        if FileManager.default.fileExists(atPath: source.path + "-wal") {
            try FileManager.default.copyItem(at: URL(fileURLWithPath: source.path + "-wal"), to: URL(fileURLWithPath: kept.path + "-wal"))
        }
        let live = try writer.read { db in Set(try Int64.fetchAll(db, sql: "SELECT Z_PK FROM ZARTICLE")) }
        try writer.close()
        return (kept, titles.filter { !live.contains($0.key) }, live)
    }

    @Test func deletedRowsAreFoundAndNothingElse() throws {
        let generated = try Self.write(secureDelete: false, restartLog: true)
        let before = try Checksums.of(directory: generated.store.deletingLastPathComponent())
        let recovered = try RecoveredRows.make(storePath: generated.store.path)
        #expect(try Checksums.of(directory: generated.store.deletingLastPathComponent()) == before)
        var found: [Int64: String] = [:]
        for row in recovered.rows {
            #expect(row.entity == "Article")
            #expect(!row.partial)
            #expect(!generated.live.contains(row.pk), "live row \(row.pk) listed")
            guard case .string(let title)? = row.values.first(where: { $0.name == "title" })?.value else {
                Issue.record("p\(row.pk) has no title")
                continue
            }
            // Nothing that never existed: each row is one written, under its own key.
            #expect(generated.deleted[row.pk]?.contains(title) == true, "p\(row.pk) \(title)")
            found[row.pk] = title
        }
        // Rows that shared a page with live rows are free space in a live page, not a free
        // page: all but those few are found.
        #expect(found.count >= generated.deleted.count - 40, "\(found.count) of \(generated.deleted.count)")
        // The first titles of the retitled articles are only in frames of the log's earlier
        // generation.
        let firstTitles = recovered.rows.filter { row in
            guard case .string(let title)? = row.values.first(where: { $0.name == "title" })?.value else { return false }
            return title.hasPrefix("doomed-") && !title.hasSuffix("-v2")
        }
        #expect(!firstTitles.isEmpty)
        #expect(firstTitles.allSatisfy { if case .earlierGeneration = $0.source { true } else { false } })
        #expect(recovered.rows.contains { if case .freePage = $0.source { true } else { false } })
    }

    @Test func secureDeleteLeavesNothing() throws {
        let generated = try Self.write(secureDelete: true, restartLog: false)
        let recovered = try RecoveredRows.make(storePath: generated.store.path)
        #expect(recovered.rows.isEmpty, "\(recovered.rows.map(\.pk))")
        #expect(recovered.freePages > 0)
    }

    @Test func theCommandPrintsTextAndJSON() throws {
        let generated = try Self.write(secureDelete: false, restartLog: true)
        let text = CommandRunner.runInProcess(["wal", generated.store.path, "--recovered"])
        #expect(text.status == 0)
        #expect(text.stdout.contains("rows recovered from"))
        #expect(text.stdout.contains("Article p"))
        let json = CommandRunner.runInProcess(["wal", generated.store.path, "--recovered", "--json"])
        #expect(json.status == 0)
        let document = try JSONValue(parsing: json.stdout)
        guard case .array(let rows)? = document.members?["rows"] else {
            Issue.record("no rows in \(json.stdout)")
            return
        }
        #expect(rows.count == (try RecoveredRows.make(storePath: generated.store.path)).rows.count)
        let both = CommandRunner.runInProcess(["wal", generated.store.path, "--recovered", "--changes"])
        #expect(both.status != 0)
        #expect(both.stderr.contains("--changes and --recovered are two reports"))
    }
}
