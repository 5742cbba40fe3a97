import CDBase
import CDModel
import CDStore
import Foundation
import GRDB

/// A property's value before and after an update; nil where the object did not exist.
package struct PropertyChange: Sendable, Equatable {
    package var name: String
    package var old: ObjectValue?
    package var new: ObjectValue?

    package init(name: String, old: ObjectValue?, new: ObjectValue?) {
        self.name = name
        self.old = old
        self.new = new
    }
}

/// Compares two versions of a store's objects: which objects were inserted, updated and deleted
/// between two snapshots (by `Z_PK` and `Z_OPT`), and how two versions of one object differ.
///
/// `watch` compares each poll with the one before; `diff` compares the objects of two stores
/// with ``differences(_:_:)`` and reads them with ``ObjectRequests``.
package enum SnapshotComparison {
    /// Objects whose `Z_PK` appears (inserted), disappears (deleted) or keeps it with another
    /// `Z_OPT` (updated), by entity number then `Z_PK`.
    package struct ChangedObjects: Sendable, Equatable {
        package var inserted: [ObjectID] = []
        package var updated: [ObjectID] = []
        package var deleted: [ObjectID] = []

        /// Whether nothing changed.
        package var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
    }

    /// The objects of `ents` that changed from `old`'s snapshot to `new`'s.
    ///
    /// Core Data bumps `Z_OPT` on every save of a row, so a `Z_PK` kept with another `Z_OPT`
    /// was saved. Each watched table is read once from each snapshot in `Z_PK` order (the
    /// rowid, so no sort) and the two scans are merged: memory holds two rows and the changes,
    /// whatever the store's size, where a map of every row's version would hold hundreds of
    /// megabytes for a store of millions of rows. A `Z_PK` that is another entity's row in
    /// `new` counts as a delete and an insert. IDs are named by `new`'s model, a deleted
    /// object's by `old`'s where `new` no longer has its entity.
    package static func changes(from old: ObjectReader, to new: ObjectReader, ents: Set<Int>) throws -> ChangedObjects {
        var byEnt: [Int: ChangedObjects] = [:]
        func id(_ ent: Int, _ pk: Int64, deleted: Bool = false) -> ObjectID? {
            guard ents.contains(ent), let name = new.modelEntityName(ent: ent) ?? (deleted ? old.modelEntityName(ent: ent) : nil) else { return nil }
            return ObjectID(storeUUID: new.storeUUID, entity: name, ent: ent, pk: pk)
        }
        let tables = watchedTables(old, ents: ents).union(watchedTables(new, ents: ents))
        try old.snapshot.read { oldDB in
            try new.snapshot.read { newDB in
                for table in tables.sorted() {
                    let sql = "SELECT Z_PK, Z_ENT, Z_OPT FROM \(table.quotedSQLIdentifier) ORDER BY Z_PK"
                    let before = try oldDB.tableExists(table) ? OrderedScan(oldDB, sql: sql, arguments: []) : nil
                    let after = try newDB.tableExists(table) ? OrderedScan(newDB, sql: sql, arguments: []) : nil
                    while before?.hasRow == true || after?.hasRow == true {
                        let oldPK = before.flatMap { $0.hasRow ? $0.integer(0) : nil }
                        let newPK = after.flatMap { $0.hasRow ? $0.integer(0) : nil }
                        if let before, let oldPK, newPK.map({ oldPK < $0 }) ?? true {
                            let ent = Int(before.integer(1))
                            if let id = id(ent, oldPK, deleted: true) { byEnt[ent, default: .init()].deleted.append(id) }
                            try before.advance()
                        } else if let after, let newPK, oldPK.map({ newPK < $0 }) ?? true {
                            let ent = Int(after.integer(1))
                            if let id = id(ent, newPK) { byEnt[ent, default: .init()].inserted.append(id) }
                            try after.advance()
                        } else if let before, let after, let pk = newPK {
                            let oldEnt = Int(before.integer(1)), newEnt = Int(after.integer(1))
                            if oldEnt != newEnt {
                                if let id = id(oldEnt, pk, deleted: true) { byEnt[oldEnt, default: .init()].deleted.append(id) }
                                if let id = id(newEnt, pk) { byEnt[newEnt, default: .init()].inserted.append(id) }
                            } else if before.integer(2) != after.integer(2), let id = id(newEnt, pk) {
                                byEnt[newEnt, default: .init()].updated.append(id)
                            }
                            try before.advance()
                            try after.advance()
                        }
                    }
                }
            }
        }
        var result = ChangedObjects()
        for ent in byEnt.keys.sorted() {
            guard let changed = byEnt[ent] else { continue }
            result.inserted += changed.inserted
            result.updated += changed.updated
            result.deleted += changed.deleted
        }
        return result
    }

    /// The tables that hold the rows of `ents` in `reader`'s mapping.
    private static func watchedTables(_ reader: ObjectReader, ents: Set<Int>) -> Set<String> {
        Set(
            ents.compactMap { ent in
                reader.modelEntityName(ent: ent).flatMap { reader.mapping.table(forEntity: $0)?.name }
            })
    }

    /// The properties whose values differ, by name.
    package static func differences(_ old: StoredObject?, _ new: StoredObject?) -> [PropertyChange] {
        let names = Set((old?.values.map(\.name) ?? []) + (new?.values.map(\.name) ?? [])).sorted()
        return names.compactMap { name in
            let before = old?.value(name), after = new?.value(name)
            return before == after ? nil : PropertyChange(name: name, old: before, new: after)
        }
    }
}

extension ObjectReader {
    /// The model's name of the entity numbered `ent`, as every object this reader reads is
    /// named; `Z_PRIMARYKEY`'s name only for an entity the model does not map. The two differ
    /// for an entity renamed by a migration, which keeps its old name in `Z_PRIMARYKEY`
    /// (store-format.md §4; CoreDataPlus V2's `LuxuryCar` is row 3 `ExpensiveSportCar`), and
    /// only the model's name finds the entity's table and properties in the mapping.
    package func modelEntityName(ent: Int) -> String? {
        mapping.entities.first { $0.number == ent }?.name ?? registry.entity(ent: ent)?.name
    }
}

/// Objects to read by ID, grouped by entity, read with one statement per entity.
package struct ObjectRequests {
    private var byEntity: [String: Set<Int64>] = [:]

    package init() {}

    /// Asks for the object `id` (its concrete entity and `Z_PK`).
    package mutating func add(_ id: ObjectID) { byEntity[id.entity, default: []].insert(id.pk) }

    /// Whether no object is asked for.
    package var isEmpty: Bool { byEntity.isEmpty }

    /// The objects asked for that `reader` has, by ID; `includes` names the to-many
    /// relationships whose members are fetched (the others stay faults).
    package func read(_ reader: ObjectReader, includes: Set<String> = []) throws -> [ObjectID: StoredObject] {
        var result: [ObjectID: StoredObject] = [:]
        for (entity, pks) in byEntity.sorted(by: { $0.key < $1.key }) {
            guard let table = reader.mapping.table(forEntity: entity), let ent = reader.mapping.entityNumber(of: entity) else { continue }
            let columns = table.columns.map(\.name)
            let keys = pks.sorted()
            let sql =
                "SELECT " + columns.map(\.quotedSQLIdentifier).joined(separator: ", ")
                + " FROM " + table.name.quotedSQLIdentifier + " WHERE Z_ENT = ? AND Z_PK IN ("
                + keys.map { _ in "?" }.joined(separator: ", ") + ")"
            let arguments = [ent.databaseValue] + keys.map(\.databaseValue)
            let query = ObjectQuery(
                entity: entity, includes: includes,
                statement: ObjectStatement(sql: sql, arguments: arguments, columns: columns))
            try reader.read(query, section: { _ in }, object: { object in result[object.id] = object })
        }
        return result
    }
}
