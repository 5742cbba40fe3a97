import CDMaintenance
import CDModel
import CDPredicate
import CDStore
import CDTestSupport
import Foundation
import GRDB
import Testing

@Suite(.temporaryDirectories) struct CleanTests {
    /// Rows per entity, read the usual way (a private copy, the `-wal` included).
    static func rowCounts(_ store: URL) throws -> [String: Int] {
        let inspection = try StoreInspector.inspect(path: store.path, counts: true)
        return Dictionary(uniqueKeysWithValues: inspection.entities.map { ($0.name, $0.rows ?? -1) })
    }

    /// Runs `sql` on a private copy of `store`, which stays untouched.
    static func query<T: DatabaseValueConvertible>(_ store: URL, _ sql: String, arguments: StatementArguments = []) throws -> T? {
        let snapshot = try StoreSnapshot(path: store.path)
        return try snapshot.read { try T.fetchOne($0, sql: sql, arguments: arguments) }
    }

    @Test(arguments: [Stores.walOnly, Stores.walAndShm])
    func theWALIsCheckpointedAndEmptied(_ store: String) throws {
        let copy = try Corpus.copyStore(store)
        let rows = try Self.rowCounts(copy)
        let walBytes = try #require(StoreFiles.size(of: StoreFiles(path: copy.path).wal))
        let report = try StoreCleaner.run(path: copy.path, options: .init(backup: false))
        #expect(report.checkpoint.walMode)
        #expect(report.checkpoint.walBytesBefore == walBytes)
        #expect(report.checkpoint.walBytesAfter == 0)
        #expect(StoreFiles.size(of: StoreFiles(path: copy.path).wal) == 0)
        #expect(try Self.rowCounts(copy) == rows)
        #expect(rows.values.reduce(0, +) > 0)
        #expect(report.bytesAfter == StorePart.totalBytes(StorePart.existing(of: StoreFiles(path: copy.path))))
    }

    @Test func theWALStoreReadsTheSameFromTheMainFileAlone() throws {
        let copy = try Corpus.copyStore(Stores.walOnly)
        _ = try StoreCleaner.run(path: copy.path, options: .init(backup: false))
        try FileManager.default.removeItem(atPath: copy.path + "-wal")
        try? FileManager.default.removeItem(atPath: copy.path + "-shm")
        #expect(try Self.rowCounts(copy)["Post"] == 84)
    }

    @Test func orphanedExternalFilesGoAndReferencedOnesStay() throws {
        let copy = try Stores.withExternalData()
        let model = try Self.externalModel(copy)
        let folder = StoreFiles(path: copy.path).externalDataFolder
        try Data("stray".utf8).write(to: folder.appendingPathComponent("STRAY-1"))
        try Data("stray too".utf8).write(to: folder.appendingPathComponent("STRAY-2"))
        try Data("hidden".utf8).write(to: folder.appendingPathComponent(".DS_Store"))
        let dryRun = try StoreCleaner.run(path: copy.path, options: .init(dryRun: true, model: model))
        #expect(dryRun.externalData.orphans == ["STRAY-1", "STRAY-2"])
        #expect(dryRun.externalData.removed == 0)
        let report = try StoreCleaner.run(path: copy.path, options: .init(backup: false, model: model))
        #expect(report.externalData.orphans == ["STRAY-1", "STRAY-2"])
        #expect(report.externalData.removed == 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == [".DS_Store", "COVER-2"])
        #expect(report.bytesBefore - report.bytesAfter! >= 14)
    }

    /// The model cached in the store decides which attributes hold references: it does not mark
    /// Book.cover as external, so COVER-2 is an orphan there, as `validate` also says.
    @Test func theCachedModelDecidesWhichFilesAreReferenced() throws {
        let copy = try Stores.withExternalData()
        let folder = StoreFiles(path: copy.path).externalDataFolder
        let report = try StoreCleaner.run(path: copy.path, options: .init(backup: false))
        #expect(report.externalData.orphans == ["COVER-2"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    /// A store without a model cache (framework 481): no file can be known to be an orphan.
    @Test func externalFilesStayWhenNoModelSaysWhatRowsReferTo() throws {
        let copy = try Corpus.copyStore(Stores.walAndShm)
        let folder = StoreFiles(path: copy.path).externalDataFolder
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("kept".utf8).write(to: folder.appendingPathComponent("UNKNOWN"))
        let report = try StoreCleaner.run(path: copy.path, options: .init(backup: false))
        #expect(report.externalData.orphans.isEmpty && report.externalData.removed == 0)
        #expect(report.externalData.skipped?.hasPrefix("cannot tell which files rows refer to") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["UNKNOWN"])
    }

    static func externalModel(_ store: URL) throws -> ManagedObjectModel {
        let cached = try ModelSource.versions(at: store.path)[0].model
        let xml = ModelXMLWriter.xml(for: cached).replacingOccurrences(
            of: "<attribute name=\"cover\" ",
            with: "<attribute name=\"cover\" allowsExternalBinaryDataStorage=\"YES\" ")
        return try XMLModelReader.model(fromXML: Data(xml.utf8))
    }

    @Test func aLoweredZMaxIsRaisedToTheLargestPrimaryKey() throws {
        let copy = try Stores.copy(Stores.books, sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = 10 WHERE Z_NAME = 'Book'")
        let largest: Int = try #require(try Self.query(copy, "SELECT MAX(Z_PK) FROM ZBOOK"))
        let pageMax: Int = try #require(try Self.query(copy, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Page'"))
        let dryRun = try StoreCleaner.run(path: copy.path, options: .init(repairPrimaryKeys: true, dryRun: true))
        #expect(dryRun.primaryKeys == [CleanReport.PrimaryKeyRepair(entity: "Book", table: "ZBOOK", oldMax: 10, newMax: largest)])
        let report = try StoreCleaner.run(path: copy.path, options: .init(repairPrimaryKeys: true, backup: false))
        #expect(report.primaryKeys == dryRun.primaryKeys)
        #expect(try Self.query(copy, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Book'") == largest)
        #expect(try Self.query(copy, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Page'") == pageMax)
        let again = try StoreCleaner.run(path: copy.path, options: .init(repairPrimaryKeys: true, backup: false))
        #expect(again.primaryKeys == [])
    }

    @Test func aZMaxAboveTheLargestKeyIsNeverLowered() throws {
        let copy = try Stores.copy(Stores.books, sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = 5000 WHERE Z_NAME = 'Book'")
        let report = try StoreCleaner.run(path: copy.path, options: .init(repairPrimaryKeys: true, backup: false))
        #expect(report.primaryKeys == [])
        #expect(try Self.query(copy, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Book'") == 5000)
    }

    /// NoteStore's 84 transactions run from 703259921.72 to 705373256.94 (seconds since 2001).
    @Test func historyBeforeADateIsDeletedWithItsChanges() throws {
        let copy = try Corpus.copyStore(Stores.history)
        let cutoff = try #require(CoreDataDate(iso8601: "2023-05-01T00:00:00Z")?.date)
        let seconds = cutoff.timeIntervalSinceReferenceDate
        let oldTransactions: Int = try #require(try Self.query(copy, "SELECT COUNT(*) FROM ATRANSACTION WHERE ZTIMESTAMP < ?", arguments: [seconds]))
        let oldChanges: Int = try #require(
            try Self.query(
                copy,
                """
                SELECT COUNT(*) FROM ACHANGE c JOIN ATRANSACTION t ON c.ZTRANSACTIONID = t.Z_PK WHERE t.ZTIMESTAMP < ?
                """, arguments: [seconds]))
        #expect(oldTransactions > 0 && oldTransactions < 84)
        #expect(oldChanges > 0 && oldChanges < 298)
        let report = try StoreCleaner.run(path: copy.path, options: .init(historyBefore: cutoff, backup: false))
        #expect(
            report.history
                == CleanReport.History(
                    before: "2023-05-01T00:00:00.000Z", present: true,
                    transactions: oldTransactions, changes: oldChanges))
        #expect(try Self.query(copy, "SELECT COUNT(*) FROM ATRANSACTION") == 84 - oldTransactions)
        #expect(try Self.query(copy, "SELECT COUNT(*) FROM ACHANGE") == 298 - oldChanges)
        #expect(try Self.query(copy, "SELECT COUNT(*) FROM ATRANSACTION WHERE ZTIMESTAMP < ?", arguments: [seconds]) == 0)
        #expect(try Self.query(copy, "SELECT COUNT(*) FROM ACHANGE WHERE ZTRANSACTIONID NOT IN (SELECT Z_PK FROM ATRANSACTION)") == 0)
    }

    @Test func historyOnAStoreWithoutHistoryTables() throws {
        let copy = try Corpus.copyStore(Stores.walOnly)
        let report = try StoreCleaner.run(path: copy.path, options: .init(historyBefore: Date(), dryRun: true))
        #expect(report.history?.present == false && report.history?.transactions == 0)
    }

    @Test func vacuumReclaimsTheSpaceDeletedHistoryLeft() throws {
        let copy = try Corpus.copyStore(Stores.history)
        let farFuture = try #require(CoreDataDate(iso8601: "2100-01-01")?.date)
        _ = try StoreCleaner.run(path: copy.path, options: .init(historyBefore: farFuture, backup: false))
        let freePages: Int = try #require(try Self.query(copy, "PRAGMA freelist_count"))
        #expect(freePages > 0)
        let mainBefore = try #require(StoreFiles.size(of: copy))
        let report = try StoreCleaner.run(path: copy.path, options: .init(vacuum: true, backup: false))
        #expect(try Self.query(copy, "PRAGMA freelist_count") == 0)
        #expect(try #require(StoreFiles.size(of: copy)) < mainBefore)
        #expect(try #require(report.bytesReclaimed) > 0)
        #expect(report.bytesReclaimed == report.bytesBefore - StorePart.totalBytes(StorePart.existing(of: StoreFiles(path: copy.path))))
    }

    @Test func aDryRunChangesNoByte() throws {
        let copy = try Stores.withExternalData()
        try Data("stray".utf8).write(to: StoreFiles(path: copy.path).externalDataFolder.appendingPathComponent("STRAY"))
        let before = try Checksums.of(directory: copy.deletingLastPathComponent())
        let report = try StoreCleaner.run(
            path: copy.path,
            options: .init(
                vacuum: true, historyBefore: Date(), repairPrimaryKeys: true, dryRun: true, model: try Self.externalModel(copy)))
        #expect(report.dryRun && report.bytesAfter == nil && report.backup == nil)
        #expect(report.externalData.orphans == ["STRAY"])
        #expect(report.history?.transactions == 1)
        #expect(try Checksums.of(directory: copy.deletingLastPathComponent()) == before)
    }

    @Test func aBackupIsTakenFirst() throws {
        let copy = try Corpus.copyStore(Stores.walOnly)
        let before = try Checksums.of(directory: copy.deletingLastPathComponent())
        let report = try StoreCleaner.run(path: copy.path, options: .init(vacuum: true))
        let backup = try #require(report.backup)
        let backedUp = try Checksums.of(directory: URL(fileURLWithPath: backup))
        #expect(backedUp == before)
    }

    @Test(.enabled(if: HeldStore.isAvailable))
    func aHeldStoreIsRefusedAndABusyOneFailsEvenWhenForced() throws {
        let copy = try Corpus.copyStore(Stores.rollback)
        let held = try HeldStore(copy, commands: "BEGIN EXCLUSIVE;\n")
        defer { held.release() }
        let before = try Checksums.of(directory: copy.deletingLastPathComponent())
        #expect {
            _ = try StoreCleaner.run(path: copy.path, options: .init(repairPrimaryKeys: true, backup: false))
        } throws: { "\($0)".contains("is in use: process") }
        #expect {
            _ = try StoreCleaner.run(path: copy.path, options: .init(repairPrimaryKeys: true, backup: false, force: true))
        } throws: { "\($0)".contains("is in use: another process holds a lock") }
        #expect(try Checksums.of(directory: copy.deletingLastPathComponent()) == before)
    }
}
