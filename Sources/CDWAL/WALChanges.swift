import CDBase
import CDChanges
import CDDiff
import CDMapping
import CDSession
import CDStore
import Foundation
import GRDB

/// What `cdstore wal --changes` reports: each commit of a store's `-wal` as object changes, the
/// objects it inserted, deleted and updated, per entity, with each changed property old → new
/// (diff's changes, ``EntityChanges``).
///
/// A commit is compared as the store stood before it and after it (both read in place as of a
/// commit), but only over the objects the pages it wrote can hold (``CommitRows``,
/// ``ChangedObjects``): the cost grows with the commit, not the store. Where the pages cannot
/// tell (a schema change, an overflow page rewritten in place), the commit's two states are
/// compared whole and the commit says so.
package struct WALChanges: Sendable {
    /// One commit's changes.
    package struct Commit: Sendable {
        /// 1 for the log's first commit.
        package var number: Int
        package var frames: Int
        /// How many distinct pages it wrote.
        package var pages: Int
        /// Why the whole store was compared instead of the objects on its pages; nil when the
        /// pages told.
        package var wholeStoreReason: String?
        /// Objects per entity, when the commit made the store's tables (nothing before it is a
        /// Core Data store): every object after it is new.
        package var created: [(entity: String, objects: Int)]?
        /// Why the store as of this commit is not a Core Data store yet (its tables not all
        /// made), when it is not.
        package var unreadable: String?
        /// The entities whose objects changed, as `diff` lists them.
        package var data: [EntityChanges] = []
        /// The tables whose rows are on the pages it wrote (found from the pages), by name:
        /// for a commit that changed no object, which of Core Data's own tables it wrote
        /// (`Z_PRIMARYKEY`, `Z_METADATA`, the history tables).
        package var tables: [String] = []
        /// The persistent-history transactions it added (`ATRANSACTION` rows newer than every
        /// one before it), with their changes, as `history` reads them.
        package var transactions: [HistoryTransaction] = []
    }

    /// The store's main file.
    package var store: String
    /// All commits of the log.
    package var commitCount: Int
    /// The commits asked for, in order.
    package var commits: [Commit]

    /// The changes of commits `from` through `to` (default: all) of the store at `path`, for
    /// `entities` (and their sub-entities; empty: all), listing at most `limit` objects per
    /// entity and commit, inserted and deleted ones with all their values when `values`.
    package static func make(
        storePath path: String, modelPath: String? = nil, from: Int? = nil, to: Int? = nil, entities: [String] = [], limit: Int = 20,
        values: Bool = false
    ) throws -> WALChanges {
        let files = StoreFiles(path: path)
        guard FileManager.default.fileExists(atPath: files.main.path) else { throw StoreError.fileNotFound(path: files.main.path) }
        guard let log = try WriteAheadLog.read(files.wal) else { throw WALError.noLog(path: files.main.path, walName: files.wal.lastPathComponent) }
        let count = log.commits.count
        let first = from ?? 1, last = to ?? count
        for (option, value) in [("--from", from), ("--to", to)] {
            if let value, value < 1 || value > count { throw WALError.noSuchCommit(option: option, requested: value, path: files.wal.path, commits: count) }
        }
        if first > last { throw WALError.emptyRange(from: first, to: last) }
        var result = WALChanges(store: files.main.path, commitCount: count, commits: [])
        guard count > 0 else { return result }
        let pages = try LogPages(files: files, log: log)
        var options = DiffOptions()
        options.parts = [.data]
        options.entities = entities
        options.limit = limit
        options.values = values
        // A state without Core Data's tables (the main file alone of a store the log created,
        // a commit in the middle of creating it) has no objects; any other fails as it would
        // for every read command.
        func open(_ number: Int) throws -> (session: StoreSession?, schema: CommitRows.Schema) {
            do {
                let session = try StoreSession(storePath: path, modelPath: modelPath, asOf: number, log: log)
                let schema = try session.snapshot.read { try CommitRows.Schema.read($0) }
                return (schema.isCoreData ? session : nil, schema)
            } catch {
                let schema = try CommitRows.Schema.read(files, walBytes: number == 0 ? 0 : log.commits[number - 1].logBytes)
                if schema.isCoreData { throw error }
                return (nil, schema)
            }
        }
        var (sessionBefore, schemaBefore) = try open(first - 1)
        for number in first...last {
            let commit = log.commits[number - 1]
            var report = Commit(number: number, frames: commit.frames, pages: commit.pages.count)
            let (sessionAfter, schemaAfter) = try open(number)
            if let sessionAfter {
                if let sessionBefore {
                    let rows = try CommitRows.of(commit: number, pages: pages, before: schemaBefore, after: schemaAfter)
                    report.wholeStoreReason = rows.wholeStoreReason
                    report.tables = rows.rows.filter { !$0.value.isEmpty }.keys.sorted()
                    // The model and mapping are read once while the commits leave the schema,
                    // Core Data's metadata and model cache alone.
                    if rows.wholeStoreReason == nil, !report.tables.contains(where: { ["Z_METADATA", "Z_MODELCACHE"].contains($0.uppercased()) }) {
                        sessionAfter.sameLayout = try sessionBefore.reader()
                    }
                    var commitOptions = options
                    if rows.wholeStoreReason == nil {
                        commitOptions.objects = try ChangedObjects.objects(
                            onRows: rows.rows, readerA: try sessionBefore.reader(), readerB: try sessionAfter.reader())
                    }
                    report.data = try StoreDiffer.compare(sessionBefore, sessionAfter, options: commitOptions).data ?? []
                } else {
                    report.created = try Self.objectCounts(try sessionAfter.reader(), entities: entities)
                }
                report.transactions = try Self.transactions(before: sessionBefore, after: sessionAfter, entities: entities)
            } else {
                report.unreadable = "no Core Data tables yet (Z_METADATA, Z_PRIMARYKEY)"
            }
            result.commits.append(report)
            schemaBefore = schemaAfter
            sessionBefore = sessionAfter
        }
        return result
    }

    /// The history transactions `after` holds beyond the newest of `before` (all of them when
    /// `before` has none), only their changes of `entities` and their sub-entities when given;
    /// none for a store without persistent history.
    private static func transactions(before: StoreSession?, after: StoreSession, entities: [String]) throws -> [HistoryTransaction] {
        guard try after.snapshot.read({ try HistoryReader.hasHistory($0) }) else { return [] }
        let newestBefore = try before?.snapshot.read { db -> Int64? in
            try HistoryReader.hasHistory(db) ? try Int64.fetchOne(db, sql: "SELECT MAX(Z_PK) FROM ATRANSACTION") : nil
        }
        var transactions = try HistoryReader(snapshot: after.snapshot).transactions(HistoryFilter(afterTransaction: newestBefore ?? 0))
        let reader = try after.reader()
        if let numbers = entityNumbers(entities, in: reader) {
            let names = Set(reader.mapping.entities.filter { numbers.contains($0.number) }.map(\.name))
            transactions = transactions.compactMap { transaction in
                var kept = transaction
                kept.changes = transaction.changes.filter { names.contains($0.entity) }
                return kept.changes.isEmpty ? nil : kept
            }
        }
        return transactions
    }

    /// Objects per concrete entity (of `entities` and their sub-entities; empty: all), in
    /// `Z_ENT` order, for a commit that made the store.
    private static func objectCounts(_ reader: ObjectReader, entities: [String]) throws -> [(entity: String, objects: Int)] {
        for name in entities where reader.model.entity(named: name) == nil {
            throw StoreError.unknownEntity(name: name, known: reader.dumpableEntities)
        }
        let wanted = entityNumbers(entities, in: reader)
        return try reader.snapshot.read { db in
            try reader.dumpableEntities.compactMap { name -> (String, Int)? in
                guard let number = reader.mapping.entityNumber(of: name), wanted?.contains(number) ?? true,
                    let table = reader.mapping.table(forEntity: name)?.name, try db.tableExists(table)
                else { return nil }
                let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table.quotedSQLIdentifier) WHERE Z_ENT = ?", arguments: [number])
                return (name, count ?? 0)
            }
        }
    }

    /// The `Z_ENT`s of `entities` and their sub-entities in `reader`'s mapping; nil when
    /// `entities` is empty (every entity).
    private static func entityNumbers(_ entities: [String], in reader: ObjectReader) -> Set<Int>? {
        entities.isEmpty ? nil : Set(entities.flatMap { reader.mapping.entityNumbers(includingSubentitiesOf: $0) })
    }
}
