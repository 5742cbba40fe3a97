import CDChanges
import CDStore
import CDTestSupport
import Foundation
import GRDB
import Testing

/// The watcher against a writer that changes a WAL-mode copy of a corpus store as Core Data
/// would: `Z_PK` from `Z_MAX`, `Z_OPT` bumped on every update.
@Suite(.temporaryDirectories) struct WatcherTests {
    @Test func comparesSnapshotsOfAStoreWithoutHistory() throws {
        let copy = try Corpus.copyStore("wibosco-migration/CoreDataMigration_Example_WAL.sqlite")
        defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
        let writer = try DatabaseQueue(path: copy.path)
        defer { try? writer.close() }
        #expect(try writer.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") } == "wal")

        let watcher = try StoreWatcher(path: copy.path, entities: ["Post"])
        #expect(!watcher.usesHistory)
        #expect(try watcher.poll().isEmpty)

        let pk = try writer.write { db -> Int64 in
            let pk = (try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Post'") ?? 0) + 1
            try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_NAME = 'Post'", arguments: [pk])
            try db.execute(sql: "INSERT INTO ZPOST (Z_PK, Z_ENT, Z_OPT, ZHIDE, ZPOSTID) VALUES (?, 2, 1, 0, 'first')", arguments: [pk])
            return pk
        }
        let inserted = try watcher.poll()
        #expect(inserted.count == 1)
        #expect(inserted.first?.changes.map(\.type) == [.insert])
        #expect(inserted.first?.changes.first?.id.pk == pk)
        #expect(inserted.first?.changes.first?.object?.value("postID") == .string("first"))

        try writer.write { db in
            try db.execute(sql: "UPDATE ZPOST SET ZPOSTID = 'second', Z_OPT = Z_OPT + 1 WHERE Z_PK = ?", arguments: [pk])
        }
        let updated = try #require(try watcher.poll().first?.changes.first)
        #expect(updated.type == .update)
        #expect(updated.changes.map(\.name) == ["postID"])
        #expect(updated.changes.first?.old == .string("first"))
        #expect(updated.changes.first?.new == .string("second"))

        try writer.write { db in try db.execute(sql: "DELETE FROM ZPOST WHERE Z_PK = ?", arguments: [pk]) }
        let deleted = try #require(try watcher.poll().first?.changes.first)
        #expect(deleted.type == .delete)
        #expect(deleted.object?.value("postID") == .string("second"))

        // A change to an entity that is not watched is not reported.
        try writer.write { db in try db.execute(sql: "UPDATE ZCOLOR SET Z_OPT = Z_OPT + 1, ZHEX = 'fff' WHERE Z_PK = 1") }
        #expect(try watcher.poll().isEmpty)
    }

    /// A migration that renamed an entity leaves its old name in `Z_PRIMARYKEY` (CoreDataPlus V2:
    /// row 3 `ExpensiveSportCar`, the model's `LuxuryCar`): the watcher names its objects as the
    /// model does, which is also how it finds their table to read their values from.
    @Test func namesARenamedEntityAsTheModelDoes() throws {
        let copy = try Corpus.copyStore("cdplus-samplemodel/SampleModel_V2.sqlite")
        let writer = try DatabaseQueue(path: copy.path)
        defer { try? writer.close() }
        #expect(try writer.read { db in try String.fetchOne(db, sql: "SELECT Z_NAME FROM Z_PRIMARYKEY WHERE Z_ENT = 3") } == "ExpensiveSportCar")
        let watcher = try StoreWatcher(path: copy.path, entities: ["Car"])
        let pk = try writer.write { db -> Int64 in
            try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + 1 WHERE Z_ENT = 1")
            let pk = try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 1") ?? 0
            try db.execute(
                sql: "INSERT INTO ZCAR (Z_PK, Z_ENT, Z_OPT, ZISLIMITEDEDITION, ZMAKER, ZNUMBERPLATE) VALUES (?, 3, 1, 1, 'Test', 'renamed')",
                arguments: [pk])
            try db.execute(sql: "UPDATE ZCAR SET ZMODEL = 'Updated', Z_OPT = Z_OPT + 1 WHERE Z_PK = 14")
            return pk
        }
        let changes = try watcher.poll().flatMap(\.changes)
        #expect(changes.map(\.type) == [.insert, .update])
        #expect(changes.map(\.id.entity) == ["LuxuryCar", "LuxuryCar"])
        #expect(changes.map(\.id.pk) == [pk, 14])
        #expect(changes.first?.object?.value("numberPlate") == .string("renamed"))
        #expect(changes.first?.object?.value("isLimitedEdition") == .boolean(true))
        #expect(changes.last?.changes.map(\.name) == ["model"])
        #expect(changes.last?.changes.first?.new == .string("Updated"))
    }
}
