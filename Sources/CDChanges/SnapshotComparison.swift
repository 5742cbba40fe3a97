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
    /// `Z_PK → Z_OPT` of every row of the entities numbered `ents`, by `Z_ENT`. Core Data bumps
    /// `Z_OPT` on every save of a row, so a different `Z_OPT` means the row was saved.
    package typealias Versions = [Int: [Int64: Int64]]

    /// Objects whose `Z_PK` appears (inserted), disappears (deleted) or keeps it with another
    /// `Z_OPT` (updated), by entity number then `Z_PK`.
    package struct ChangedObjects: Sendable, Equatable {
        package var inserted: [ObjectID] = []
        package var updated: [ObjectID] = []
        package var deleted: [ObjectID] = []

        /// Whether nothing changed.
        package var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
    }

    /// The versions of the rows of `ents` in `reader`'s snapshot.
    package static func versions(_ reader: ObjectReader, ents: Set<Int>) throws -> Versions {
        var tables = Set<String>()
        for ent in ents {
            guard let name = reader.modelEntityName(ent: ent), let table = reader.mapping.table(forEntity: name) else { continue }
            tables.insert(table.name)
        }
        return try reader.snapshot.read { db in
            var result: Versions = [:]
            for table in tables.sorted() {
                let rows = try Row.fetchCursor(db, sql: "SELECT Z_PK, Z_ENT, Z_OPT FROM \(table.quotedSQLIdentifier)")
                while let row = try rows.next() {
                    let ent: Int = row[1] ?? 0
                    guard ents.contains(ent) else { continue }
                    result[ent, default: [:]][row[0] ?? 0] = row[2] ?? 0
                }
            }
            return result
        }
    }

    /// The objects of `ents` that changed from `old` to `new`; IDs are named by `reader`.
    package static func changes(from old: Versions, to new: Versions, ents: Set<Int>, reader: ObjectReader) -> ChangedObjects {
        var result = ChangedObjects()
        for ent in ents.sorted() {
            let before = old[ent] ?? [:], after = new[ent] ?? [:]
            guard let name = reader.modelEntityName(ent: ent) else { continue }
            func id(_ pk: Int64) -> ObjectID { ObjectID(storeUUID: reader.storeUUID, entity: name, ent: ent, pk: pk) }
            for (pk, opt) in after.sorted(by: { $0.key < $1.key }) {
                if let previous = before[pk] {
                    if previous != opt { result.updated.append(id(pk)) }
                } else {
                    result.inserted.append(id(pk))
                }
            }
            result.deleted += before.keys.filter { after[$0] == nil }.sorted().map(id)
        }
        return result
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
