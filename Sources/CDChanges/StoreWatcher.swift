import CDModel
import CDStore
import Foundation
import GRDB

/// One object's change as `watch` reports it.
package struct WatchedChange: Sendable {
    package var type: ChangeType
    package var id: ObjectID
    /// Inserts: the new object. Deletes: the object as it was, when the previous snapshot had it.
    package var object: StoredObject?
    /// Updates: each changed property with its value before and after.
    package var changes: [PropertyChange]
    /// Said instead of values when they cannot be told (an object changed by several commits
    /// between two polls shows its whole change at the first of them).
    package var note: String?
}

/// A property's value before and after an update; nil where the object did not exist.
package struct PropertyChange: Sendable {
    package var name: String
    package var old: ObjectValue?
    package var new: ObjectValue?
}

/// The changes of one commit: a persistent-history transaction, or everything that changed
/// between two snapshots of a store without history.
package struct WatchedCommit: Sendable {
    /// The history transaction; nil when the commit was found by comparing snapshots.
    package var transaction: HistoryTransaction?
    package var changes: [WatchedChange]
}

/// Follows a store while an app writes to it, poll by poll.
///
/// Each poll first compares the size and modification time of the main file and its `-wal`;
/// only when they moved does it take a new private snapshot (``StoreSnapshot``: a copy of the
/// store and its sidecars, opened read-only). That copy is the cost of never disturbing the app:
/// no connection to the original stays open, no lock is held between polls, nothing is
/// checkpointed or written. For a store of a few megabytes it takes milliseconds; for a large
/// one (a Photos library) every poll that sees a change copies it whole.
///
/// Changes come from persistent history when the store has it (exactly the committed
/// transactions, in order), otherwise from comparing `Z_PK` and `Z_OPT` of the watched entities
/// between the previous and the new snapshot: Core Data bumps `Z_OPT` on every save of a row.
/// The previous snapshot is kept until the next change, to read old values from; of the rest
/// only the `(Z_PK, Z_OPT)` pairs are kept in memory.
package final class StoreWatcher {
    package let path: String
    /// The previous poll's version, on a private copy: an update's old values are read from it
    /// after the app has written, which a store read in place no longer shows.
    private var previous: ObjectReader
    private var previousSignature: [FileSignature?]
    private var watchedEnts: Set<Int>
    private var lastTransaction: Int64?
    private var versions: [Int: [Int64: Int64]] = [:]

    /// Takes the first snapshot. `entities` limits the watch to those entities and their
    /// sub-entities; empty watches every entity of the model.
    package init(path: String, entities: [String] = []) throws {
        self.path = path
        previousSignature = FileSignature.of(StoreFiles(path: path))
        previous = try ObjectReader(snapshot: StoreSnapshot(path: path, keepingThisVersion: true))
        watchedEnts = try Self.watchedEnts(previous, entities: entities)
        if try previous.snapshot.read(HistoryReader.hasHistory) {
            lastTransaction = try previous.snapshot.read { db in try Int64.fetchOne(db, sql: "SELECT MAX(Z_PK) FROM ATRANSACTION") } ?? 0
        } else {
            versions = try Self.versions(previous, ents: watchedEnts)
        }
    }

    /// Whether changes come from persistent history.
    package var usesHistory: Bool { lastTransaction != nil }

    /// The commits since the last poll, oldest first; empty when the files have not moved.
    package func poll() throws -> [WatchedCommit] {
        let signature = FileSignature.of(StoreFiles(path: path))
        guard signature != previousSignature else { return [] }
        let current = try ObjectReader(snapshot: StoreSnapshot(path: path, keepingThisVersion: true))
        let commits: [WatchedCommit]
        if let last = lastTransaction, try current.snapshot.read(HistoryReader.hasHistory) {
            let transactions = try HistoryReader(snapshot: current.snapshot, model: current.model)
                .transactions(HistoryFilter(afterTransaction: last))
            lastTransaction = transactions.last?.id ?? last
            commits = try historyCommits(transactions, current: current)
        } else {
            let newVersions = try Self.versions(current, ents: watchedEnts)
            commits = try snapshotCommit(newVersions, current: current).map { [$0] } ?? []
            versions = newVersions
        }
        previous = current
        previousSignature = signature
        return commits
    }

    private func historyCommits(_ transactions: [HistoryTransaction], current: ObjectReader) throws -> [WatchedCommit] {
        var requests = ObjectRequests()
        for transaction in transactions {
            for change in transaction.changes {
                guard let id = objectID(change, reader: current), watchedEnts.contains(id.ent) else { continue }
                requests.add(id)
            }
        }
        let before = try requests.read(previous)
        let after = try requests.read(current)
        var reported = Set<ObjectID>()
        var commits: [WatchedCommit] = []
        for transaction in transactions {
            var changes: [WatchedChange] = []
            for change in transaction.changes {
                guard let id = objectID(change, reader: current), watchedEnts.contains(id.ent) else { continue }
                let firstTime = reported.insert(id).inserted
                switch change.type {
                case .insert:
                    changes.append(WatchedChange(type: .insert, id: id, object: after[id], changes: [], note: nil))
                case .delete:
                    changes.append(WatchedChange(type: .delete, id: id, object: before[id], changes: [], note: nil))
                case .update:
                    if firstTime {
                        changes.append(WatchedChange(type: .update, id: id, object: nil,
                                                     changes: Self.differences(before[id], after[id]), note: nil))
                    } else {
                        changes.append(WatchedChange(type: .update, id: id, object: nil, changes: [],
                                                     note: "changed again; its values after this poll are shown above"))
                    }
                }
            }
            if !changes.isEmpty { commits.append(WatchedCommit(transaction: transaction, changes: changes)) }
        }
        return commits
    }

    private func snapshotCommit(_ newVersions: [Int: [Int64: Int64]], current: ObjectReader) throws -> WatchedCommit? {
        var inserted: [ObjectID] = [], updated: [ObjectID] = [], deleted: [ObjectID] = []
        for ent in watchedEnts.sorted() {
            let old = versions[ent] ?? [:], new = newVersions[ent] ?? [:]
            guard let name = current.registry.entity(ent: ent)?.name else { continue }
            func id(_ pk: Int64) -> ObjectID { ObjectID(storeUUID: current.storeUUID, entity: name, ent: ent, pk: pk) }
            for (pk, opt) in new.sorted(by: { $0.key < $1.key }) {
                if let before = old[pk] {
                    if before != opt { updated.append(id(pk)) }
                } else {
                    inserted.append(id(pk))
                }
            }
            deleted += old.keys.filter { new[$0] == nil }.sorted().map(id)
        }
        guard !(inserted.isEmpty && updated.isEmpty && deleted.isEmpty) else { return nil }
        var requests = ObjectRequests()
        (updated + deleted).forEach { requests.add($0) }
        let before = try requests.read(previous)
        requests = ObjectRequests()
        (inserted + updated).forEach { requests.add($0) }
        let after = try requests.read(current)
        let changes = inserted.map { WatchedChange(type: .insert, id: $0, object: after[$0], changes: [], note: nil) }
            + updated.map { WatchedChange(type: .update, id: $0, object: nil, changes: Self.differences(before[$0], after[$0]), note: nil) }
            + deleted.map { WatchedChange(type: .delete, id: $0, object: before[$0], changes: [], note: nil) }
        return WatchedCommit(transaction: nil, changes: changes)
    }

    private func objectID(_ change: HistoryChange, reader: ObjectReader) -> ObjectID? {
        guard let entity = reader.registry.entity(named: change.entity),
              let pk = change.objectID.split(separator: "/").last.flatMap({ Int64($0.dropFirst()) }) else { return nil }
        return ObjectID(storeUUID: reader.storeUUID, entity: entity.name, ent: entity.ent, pk: pk)
    }

    /// The properties whose values differ, by name.
    static func differences(_ old: StoredObject?, _ new: StoredObject?) -> [PropertyChange] {
        let names = Set((old?.values.map(\.name) ?? []) + (new?.values.map(\.name) ?? [])).sorted()
        return names.compactMap { name in
            let before = old?.value(name), after = new?.value(name)
            return before == after ? nil : PropertyChange(name: name, old: before, new: after)
        }
    }

    private static func watchedEnts(_ reader: ObjectReader, entities: [String]) throws -> Set<Int> {
        let names = entities.isEmpty ? reader.dumpableEntities : entities
        var result = Set<Int>()
        for name in names {
            guard reader.model.entity(named: name) != nil, let ent = reader.mapping.entityNumber(of: name) else {
                throw StoreError.unknownEntity(name, mapping: reader.mapping, model: reader.model)
            }
            result.insert(ent)
            result.formUnion(reader.mapping.entityNumbers(includingSubentitiesOf: name))
        }
        return result
    }

    /// `Z_PK → Z_OPT` of every row of the watched entities, by `Z_ENT`.
    private static func versions(_ reader: ObjectReader, ents: Set<Int>) throws -> [Int: [Int64: Int64]] {
        var tables = Set<String>()
        for ent in ents {
            guard let name = reader.registry.entity(ent: ent)?.name, let table = reader.mapping.table(forEntity: name) else { continue }
            tables.insert(table.name)
        }
        return try reader.snapshot.read { db in
            var result: [Int: [Int64: Int64]] = [:]
            for table in tables.sorted() {
                let rows = try Row.fetchCursor(db, sql: "SELECT Z_PK, Z_ENT, Z_OPT FROM \(table.quotedDatabaseIdentifier)")
                while let row = try rows.next() {
                    let ent: Int = row[1] ?? 0
                    guard ents.contains(ent) else { continue }
                    result[ent, default: [:]][row[0] ?? 0] = row[2] ?? 0
                }
            }
            return result
        }
    }
}

/// Size and modification time of one file of a store; a change in either means a new commit
/// may be there. Missing files have no signature, so a WAL appearing or vanishing counts too.
struct FileSignature: Equatable {
    let size: Int
    let modified: Date

    static func of(_ files: StoreFiles) -> [FileSignature?] {
        [files.main, files.wal].map { url in
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else { return nil }
            return FileSignature(size: (attributes[.size] as? NSNumber)?.intValue ?? 0,
                                 modified: attributes[.modificationDate] as? Date ?? .distantPast)
        }
    }
}

/// Objects to read by ID, grouped by entity, read with one statement per entity.
private struct ObjectRequests {
    private var byEntity: [String: Set<Int64>] = [:]

    mutating func add(_ id: ObjectID) { byEntity[id.entity, default: []].insert(id.pk) }

    func read(_ reader: ObjectReader) throws -> [ObjectID: StoredObject] {
        var result: [ObjectID: StoredObject] = [:]
        for (entity, pks) in byEntity.sorted(by: { $0.key < $1.key }) {
            guard let table = reader.mapping.table(forEntity: entity), let ent = reader.mapping.entityNumber(of: entity) else { continue }
            let columns = table.columns.map(\.name)
            let keys = pks.sorted()
            let sql = "SELECT " + columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
                + " FROM " + table.name.quotedDatabaseIdentifier + " WHERE Z_ENT = ? AND Z_PK IN ("
                + keys.map { _ in "?" }.joined(separator: ", ") + ")"
            let arguments = [ent.databaseValue] + keys.map(\.databaseValue)
            let query = ObjectQuery(entity: entity, statement: ObjectStatement(sql: sql, arguments: arguments, columns: columns))
            try reader.read(query, section: { _ in }, object: { object in result[object.id] = object })
        }
        return result
    }
}
