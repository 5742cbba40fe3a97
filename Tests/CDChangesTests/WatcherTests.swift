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

    /// A rollback-mode commit that leaves the file's size and modification time as the last
    /// poll saw them (two commits within one tick of the file system's clock) is still seen:
    /// SQLite's file change counter moved. Here the time is set to the same round value before
    /// the watch and after the write.
    @Test func seesACommitThatKeepsTheFilesSizeAndTime() throws {
        let copy = try Corpus.copyStore("cdplus-samplemodel/SampleModel_V2.sqlite")
        let modified = Date(timeIntervalSince1970: 1_700_000_000)
        try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: copy.path)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: copy.path)[.size] as? NSNumber)
        let watcher = try StoreWatcher(path: copy.path, entities: ["Car"])
        let writer = try DatabaseQueue(path: copy.path)
        try writer.write { db in
            #expect(try String.fetchOne(db, sql: "PRAGMA journal_mode") == "delete")
            try db.execute(sql: "UPDATE ZCAR SET ZMODEL = 'Same tick', Z_OPT = Z_OPT + 1 WHERE Z_PK = 14")
        }
        try writer.close()
        try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: copy.path)
        let after = try FileManager.default.attributesOfItem(atPath: copy.path)
        #expect(after[.size] as? NSNumber == size && after[.modificationDate] as? Date == modified)
        let changes = try watcher.poll().flatMap(\.changes)
        #expect(changes.map(\.type) == [.update])
        #expect(changes.first?.id.pk == 14)
        #expect(changes.first?.changes.first?.new == .string("Same tick"))
    }

    /// A poll while a writer's transaction is open in rollback mode (its `-journal` beside the
    /// store) neither fails nor reports the uncommitted change; the poll after the commit
    /// reports it. A failed poll there ended `serve`'s event streams with an error.
    @Test func aPollDuringACommitWaitsForItsEnd() throws {
        let copy = try Corpus.copyStore("cdplus-samplemodel/SampleModel_V2.sqlite")
        let watcher = try StoreWatcher(path: copy.path, entities: ["Car"])
        let size = StoreFiles.size(of: copy)
        let writer = try Self.beginLargeSave(setting: "Open", in: copy)
        defer { try? writer.close() }
        #expect(FileManager.default.fileExists(atPath: copy.path + "-journal"))
        #expect((StoreFiles.size(of: copy) ?? 0) > (size ?? 0) + 1_000_000)
        #expect(try watcher.poll().flatMap(\.changes).filter { $0.changes.first?.new == .string("Open") }.isEmpty)
        try writer.inDatabase { db in try db.execute(sql: "COMMIT") }
        #expect(!FileManager.default.fileExists(atPath: copy.path + "-journal"))
        let changes = try watcher.poll().flatMap(\.changes)
        #expect(changes.map(\.type) == [.update])
        #expect(changes.first?.id.pk == 14)
        #expect(changes.first?.changes.first?.new == .string("Open"))
    }

    /// A poll that copied the store between a rollback-mode commit's last write and the removal
    /// of its journal read the store as before the commit (the copy plays the journal back); the
    /// journal's going makes the next poll read it again. Built by hand: the commit is made,
    /// then the journal of the same transaction on a copy of the old store is put beside it.
    @Test func aCommitSeenWithItsJournalIsReadAgainWhenTheJournalGoes() throws {
        let copy = try Corpus.copyStore("cdplus-samplemodel/SampleModel_V2.sqlite")
        let twin = copy.deletingLastPathComponent().appendingPathComponent("twin.sqlite")
        try FileManager.default.copyItem(at: copy, to: twin)
        let watcher = try StoreWatcher(path: copy.path, entities: ["Car"])
        let twinWriter = try Self.beginLargeSave(setting: "Journaled", in: twin)
        let journal = try Data(contentsOf: URL(fileURLWithPath: twin.path + "-journal"))
        try twinWriter.inDatabase { db in try db.execute(sql: "ROLLBACK") }
        try twinWriter.close()
        let writer = try Self.beginLargeSave(setting: "Journaled", in: copy)
        try writer.inDatabase { db in try db.execute(sql: "COMMIT") }
        try writer.close()
        try journal.write(to: URL(fileURLWithPath: copy.path + "-journal"))
        #expect(try watcher.poll().flatMap(\.changes).isEmpty, "the copy with the journal is the store before the save")
        try FileManager.default.removeItem(atPath: copy.path + "-journal")
        let changes = try watcher.poll().flatMap(\.changes)
        #expect(changes.map(\.type) == [.update])
        #expect(changes.first?.changes.first?.new == .string("Journaled"))
    }

    /// Opens a writer on `store` whose transaction stays open between its calls (GRDB refuses
    /// that by default) and begins in it a save that sets car 14's model to `model`, with a
    /// megabyte of filler and a small page cache: SQLite writes pages into the store's file
    /// before the commit, as a large save does. The caller commits or rolls back.
    static func beginLargeSave(setting model: String, in store: URL) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let writer = try DatabaseQueue(path: store.path, configuration: configuration)
        try writer.inDatabase { db in
            try db.execute(
                sql: """
                    PRAGMA cache_size = 10; BEGIN IMMEDIATE; UPDATE ZCAR SET ZMODEL = ?, Z_OPT = Z_OPT + 1 WHERE Z_PK = 14;
                    CREATE TABLE filler(x); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
                    INSERT INTO filler SELECT zeroblob(4000) FROM n;
                    """, arguments: [model])
        }
        return writer
    }
}
