import CDBase
import CDMapping
import CDModel
import CDStore
import Foundation
import GRDB
import GRDBSQLite

/// `cdstore clean`: tidies a Core Data store in place, after a backup.
///
/// Always: the `-wal` is checkpointed into the main file and truncated, and files in
/// `_EXTERNAL_DATA` that no row refers to are removed. On request: persistent history older than
/// a date is deleted (transactions and their changes), `Z_MAX` is raised to the largest `Z_PK`
/// where it lags, and the file is vacuumed. What would change is measured on the usual private
/// read-only copy first; a dry run stops there. The real run measures again inside its own
/// exclusive transaction, so the counts it reports are the rows it changed.
package enum StoreCleaner {
    /// What the user asked for.
    package struct Options: Sendable {
        package var vacuum: Bool
        /// Delete history transactions older than this.
        package var historyBefore: Date?
        package var repairPrimaryKeys: Bool
        package var dryRun: Bool
        package var backup: Bool
        package var force: Bool
        /// The model that says which attributes store data externally; default: the store's cache.
        package var model: ManagedObjectModel?

        package init(
            vacuum: Bool = false, historyBefore: Date? = nil, repairPrimaryKeys: Bool = false,
            dryRun: Bool = false, backup: Bool = true, force: Bool = false, model: ManagedObjectModel? = nil
        ) {
            self.model = model
            self.vacuum = vacuum
            self.historyBefore = historyBefore
            self.repairPrimaryKeys = repairPrimaryKeys
            self.dryRun = dryRun
            self.backup = backup
            self.force = force
        }
    }

    /// Cleans the store at `path`. `date` names the backup folder; `trace` logs the SQL run on
    /// the private copy and on the store.
    package static func run(
        path: String, options: Options, trace: SQLTrace? = nil, date: Date = Date(),
        using operations: FileOperations = SystemFileOperations()
    ) throws -> CleanReport {
        let snapshot = try StoreSnapshot(path: path, trace: trace)
        let files = snapshot.files
        let externalData = externalDataOrphans(snapshot, model: options.model)
        let measured = try snapshot.read { db in try DatabaseChanges.measure(db, options: options) }
        var report = CleanReport(
            store: files.main.path, dryRun: options.dryRun, backup: nil,
            checkpoint: .init(
                walMode: snapshot.header.isWALMode, walBytesBefore: StoreFiles.size(of: files.wal),
                framesToCheckpoint: StoreFiles.size(of: files.wal) == nil ? nil : (WALSummary.read(files.wal)?.committedFrames ?? 0),
                walBytesAfter: nil),
            externalData: .init(
                folder: files.externalDataFolder.path, orphans: externalData.orphans, removed: 0,
                skipped: externalData.skipped),
            history: measured.history, primaryKeys: measured.primaryKeys,
            vacuum: options.vacuum, bytesBefore: StorePart.totalBytes(StorePart.existing(of: files)), bytesAfter: nil)
        guard !options.dryRun else { return report }

        let directory = files.main.deletingLastPathComponent()
        guard operations.isWritableDirectory(directory) else {
            throw MaintenanceError.journalFolderReadOnly(path: directory.path, storeName: files.main.lastPathComponent)
        }
        try StoreReset.checkNotHeld(files, force: options.force)
        if options.backup {
            report.backup = try StoreBackup.make(of: StorePart.existing(of: files), store: files, at: date, using: operations).path
        }
        let applied = try applyToDatabase(files, options: options, trace: trace)
        report.history = applied.history
        report.primaryKeys = applied.primaryKeys
        report.checkpoint.walBytesAfter = StoreFiles.size(of: files.wal)
        for name in externalData.orphans {
            try operations.removeItem(files.externalDataFolder.appendingPathComponent(name))
            report.externalData.removed += 1
        }
        report.bytesAfter = StorePart.totalBytes(StorePart.existing(of: files))
        return report
    }

    /// The orphaned external-data files, or why they could not be told apart from referenced ones.
    /// Without a model that says which attributes store data externally, no file is removed.
    private static func externalDataOrphans(_ snapshot: StoreSnapshot, model: ManagedObjectModel?) -> (orphans: [String], skipped: String?) {
        let folder = snapshot.files.externalDataFolder
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        guard names.contains(where: { !$0.hasPrefix(".") }) else { return ([], nil) }
        do {
            let reader = try ObjectReader(snapshot: snapshot, model: model)
            return (try ExternalDataInventory.scan(reader).orphans(in: folder), nil)
        } catch {
            return ([], "cannot tell which files rows refer to (\(error)); none removed")
        }
    }

    /// Opens the store itself read-write and makes the changes: history and `Z_MAX` in one
    /// exclusive transaction, then the checkpoint, then `VACUUM` (and a second checkpoint, as
    /// `VACUUM` writes through the WAL).
    private static func applyToDatabase(_ files: StoreFiles, options: Options, trace: SQLTrace?) throws -> DatabaseChanges {
        var configuration = Configuration()
        configuration.busyMode = .timeout(1)
        configuration.label = "cdstore-clean"
        // A `-wal` that exists is left in place, emptied, as Core Data leaves it; SQLite would
        // otherwise delete it when the connection closes.
        let keepWAL = FileManager.default.fileExists(atPath: files.wal.path)
        let hadSharedMemory = FileManager.default.fileExists(atPath: files.shm.path)
        defer {
            // The `-shm` that keeping the `-wal` also keeps is only an index SQLite rebuilds; one
            // this run created goes again, unless another process has the store open by now.
            if keepWAL, !hadSharedMemory, StoreLockProbe.holder(of: files) == nil {
                try? FileManager.default.removeItem(at: files.shm)
            }
        }
        configuration.prepareDatabase { db in
            trace?.attach(to: db)
            if keepWAL {
                var persist: Int32 = 1
                sqlite3_file_control(db.sqliteConnection, "main", SQLITE_FCNTL_PERSIST_WAL, &persist)
            }
        }
        do {
            let queue = try DatabaseQueue(path: files.main.path, configuration: configuration)
            defer { try? queue.close() }
            var changes = DatabaseChanges()
            try queue.inTransaction(.exclusive) { db in
                changes = try DatabaseChanges.apply(db, options: options)
                return .commit
            }
            try queue.writeWithoutTransaction { db in
                let isWAL = try String.fetchOne(db, sql: "PRAGMA journal_mode") == "wal"
                if isWAL { try checkpoint(db, files: files) }
                if options.vacuum {
                    try db.execute(sql: "VACUUM")
                    if isWAL { try checkpoint(db, files: files) }
                }
            }
            return changes
        } catch let error as UserFacingError {
            throw error
        } catch let error as DatabaseError where [.SQLITE_BUSY, .SQLITE_LOCKED].contains(error.resultCode) {
            throw MaintenanceError.lockedWhileCleaning(path: files.main.path)
        } catch {
            throw MaintenanceError.cannotClean(path: files.main.path, reason: "\(error)")
        }
    }

    /// `PRAGMA wal_checkpoint(TRUNCATE)`: every frame into the main file, then the `-wal` cut to
    /// zero bytes. A reader in another process makes it stop short.
    private static func checkpoint(_ db: Database, files: StoreFiles) throws {
        guard let row = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)") else { return }
        let busy: Int = row[0]
        if busy != 0 {
            throw MaintenanceError.checkpointBlocked(path: files.main.path)
        }
    }
}

/// The changes to rows `clean` makes, measured (dry run) or made, on one connection.
struct DatabaseChanges {
    var history: CleanReport.History?
    var primaryKeys: [CleanReport.PrimaryKeyRepair]?

    static func measure(_ db: Database, options: StoreCleaner.Options) throws -> DatabaseChanges {
        try run(db, options: options, apply: false)
    }

    static func apply(_ db: Database, options: StoreCleaner.Options) throws -> DatabaseChanges {
        try run(db, options: options, apply: true)
    }

    private static func run(_ db: Database, options: StoreCleaner.Options, apply: Bool) throws -> DatabaseChanges {
        let registry = try EntityRegistry.read(db)
        let tables = try String.fetchSet(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
        var changes = DatabaseChanges()
        if let before = options.historyBefore {
            changes.history = try history(db, before: before, registry: registry, tables: tables, apply: apply)
        }
        if options.repairPrimaryKeys {
            changes.primaryKeys = try primaryKeys(db, registry: registry, tables: tables, apply: apply)
        }
        return changes
    }

    /// Transactions with a timestamp before `before`, and the changes that belong to them.
    private static func history(
        _ db: Database, before: Date, registry: EntityRegistry, tables: Set<String>,
        apply: Bool
    ) throws -> CleanReport.History {
        var result = CleanReport.History(before: CleanReport.History.format(before), present: false, transactions: 0, changes: 0)
        guard let definitions = StoreMapping.historyTables(registeredIn: registry),
            let transaction = definitions.first(where: { $0.entities == ["TRANSACTION"] }),
            let change = definitions.first(where: { $0.entities == ["CHANGE"] }),
            let timestamp = transaction.columns.first(where: { $0.property == "timestamp" }),
            let transactionKey = transaction.primaryKey.first,
            let changeTransaction = change.columns.first(where: { $0.property == "transactionID" }),
            tables.contains(transaction.name), tables.contains(change.name)
        else { return result }
        result.present = true
        let transactionTable = transaction.name.quotedSQLIdentifier
        let old = "SELECT \(transactionKey.quotedSQLIdentifier) FROM \(transactionTable) WHERE \(timestamp.name.quotedSQLIdentifier) < ?"
        let changeFilter = "FROM \(change.name.quotedSQLIdentifier) WHERE \(changeTransaction.name.quotedSQLIdentifier) IN (\(old))"
        let cutoff = before.timeIntervalSinceReferenceDate
        if apply {
            try db.execute(sql: "DELETE \(changeFilter)", arguments: [cutoff])
            result.changes = db.changesCount
            try db.execute(sql: "DELETE FROM \(transactionTable) WHERE \(timestamp.name.quotedSQLIdentifier) < ?", arguments: [cutoff])
            result.transactions = db.changesCount
        } else {
            result.changes = try Int.fetchOne(db, sql: "SELECT COUNT(*) \(changeFilter)", arguments: [cutoff]) ?? 0
            result.transactions = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (\(old))", arguments: [cutoff]) ?? 0
        }
        return result
    }

    /// Root entities whose `Z_MAX` is below the largest `Z_PK` of their table; raised, never lowered.
    private static func primaryKeys(
        _ db: Database, registry: EntityRegistry, tables: Set<String>,
        apply: Bool
    ) throws -> [CleanReport.PrimaryKeyRepair] {
        var repairs: [CleanReport.PrimaryKeyRepair] = []
        for root in registry.roots {
            let table = registry.tableName(for: root)
            guard tables.contains(table),
                let largest = try Int.fetchOne(db, sql: "SELECT MAX(Z_PK) FROM \(table.quotedSQLIdentifier)"),
                largest > root.max
            else { continue }
            if apply {
                try db.execute(
                    sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ? AND Z_MAX < ?",
                    arguments: [largest, root.ent, largest])
            }
            repairs.append(CleanReport.PrimaryKeyRepair(entity: root.name, table: table, oldMax: root.max, newMax: largest))
        }
        return repairs
    }
}

/// What `clean` changed (or, in a dry run, would change). A JSON contract: every key is present,
/// `null` when the step was not asked for or does not apply.
package struct CleanReport: Sendable, Encodable, Equatable {
    /// The `-wal` before and after.
    package struct Checkpoint: Sendable, Codable, Equatable {
        /// The header says WAL mode.
        package var walMode: Bool
        /// Null when there is no `-wal`.
        @NullEncoded package var walBytesBefore: Int?
        /// Committed frames not yet in the main file; null when there is no `-wal`.
        @NullEncoded package var framesToCheckpoint: Int?
        /// Null in a dry run or when there is no `-wal` after.
        @NullEncoded package var walBytesAfter: Int?
    }

    /// Orphaned files in `_EXTERNAL_DATA`.
    package struct ExternalData: Sendable, Codable, Equatable {
        package var folder: String
        package var orphans: [String]
        package var removed: Int
        /// Why orphans were not looked for, or null.
        @NullEncoded package var skipped: String?
    }

    /// Persistent history deleted by `--history-before`.
    package struct History: Sendable, Codable, Equatable {
        /// The cut-off, ISO 8601 in UTC.
        package var before: String
        /// The store has history tables.
        package var present: Bool
        package var transactions: Int
        package var changes: Int

        package init(before: String, present: Bool, transactions: Int, changes: Int) {
            self.before = before
            self.present = present
            self.transactions = transactions
            self.changes = changes
        }

        static func format(_ date: Date) -> String {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return formatter.string(from: date)
        }
    }

    /// One `Z_MAX` raised by `--repair-primary-keys`.
    package struct PrimaryKeyRepair: Sendable, Codable, Equatable {
        package var entity: String
        package var table: String
        package var oldMax: Int
        package var newMax: Int

        package init(entity: String, table: String, oldMax: Int, newMax: Int) {
            self.entity = entity
            self.table = table
            self.oldMax = oldMax
            self.newMax = newMax
        }
    }

    package var store: String
    package var dryRun: Bool
    /// The backup folder, or null (`--no-backup`, a dry run).
    @NullEncoded package var backup: String?
    package var checkpoint: Checkpoint
    package var externalData: ExternalData
    /// Null without `--history-before`.
    @NullEncoded package var history: History?
    /// Null without `--repair-primary-keys`.
    @NullEncoded package var primaryKeys: [PrimaryKeyRepair]?
    /// `--vacuum` was given.
    package var vacuum: Bool
    /// Total bytes of the store's files (main, sidecars, support folder).
    package var bytesBefore: Int
    /// Null in a dry run.
    @NullEncoded package var bytesAfter: Int?

    /// Bytes freed (negative when the store grew); null in a dry run.
    package var bytesReclaimed: Int? { bytesAfter.map { bytesBefore - $0 } }

    enum CodingKeys: String, CodingKey {
        case store, dryRun, backup, checkpoint, externalData, history, primaryKeys, vacuum, bytesBefore, bytesAfter, bytesReclaimed
    }

    package func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(store, forKey: .store)
        try container.encode(dryRun, forKey: .dryRun)
        try container.encode(_backup, forKey: .backup)
        try container.encode(checkpoint, forKey: .checkpoint)
        try container.encode(externalData, forKey: .externalData)
        try container.encode(_history, forKey: .history)
        try container.encode(_primaryKeys, forKey: .primaryKeys)
        try container.encode(vacuum, forKey: .vacuum)
        try container.encode(bytesBefore, forKey: .bytesBefore)
        try container.encode(_bytesAfter, forKey: .bytesAfter)
        try container.encode(NullEncoded(wrappedValue: bytesReclaimed), forKey: .bytesReclaimed)
    }
}
