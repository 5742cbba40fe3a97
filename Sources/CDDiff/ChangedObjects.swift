import CDBase
import CDMapping
import CDModel
import CDStore
import GRDB

/// The objects whose comparison can show a change when only some rows of two states of a store
/// differ (``CommitRows``): the objects of those rows, and the owners of every to-many
/// relationship whose members those rows hold. A many-to-many's members are join-table rows; a
/// to-many with an inverse (or the hidden key of one without) is the destination's key column,
/// so a member that moves changes the to-many of its old owner and of its new one, though
/// neither owner's row changed.
package enum ChangedObjects {
    /// `Z_PK`s by entity name (either reader's names), for ``DiffOptions/objects``: `rows` are
    /// rowids by table name, the rows of the two states that may differ; each reader reads its
    /// own state's join rows and keys.
    package static func objects(onRows rows: [String: Set<Int64>], readerA: ObjectReader, readerB: ObjectReader) throws -> [String: Set<Int64>] {
        let byTable = Dictionary(rows.map { ($0.key.uppercased(), $0.value) }, uniquingKeysWith: { $0.union($1) })
        var objects: [String: Set<Int64>] = [:]
        for reader in [readerA, readerB] {
            for entity in reader.mapping.entities {
                if let keys = byTable[entity.table.uppercased()] { objects[entity.name, default: []].formUnion(keys) }
            }
            try reader.snapshot.read { db in
                for entity in reader.mapping.entities where reader.model.entity(named: entity.name) != nil {
                    for property in reader.model.allProperties(of: entity.name) {
                        guard case .relationship(let relationship) = property, relationship.isToMany else { continue }
                        for query in ownerQueries(reader.mapping, entity: entity.name, relationship: relationship) {
                            guard let keys = byTable[query.table.uppercased()], !keys.isEmpty, try db.tableExists(query.listing) else { continue }
                            let owners = try Int64.fetchCursor(db, sql: query.sql, arguments: [ObjectRestriction(keys).keys])
                            while let owner = try owners.next() { objects[entity.name, default: []].insert(owner) }
                        }
                    }
                }
            }
        }
        return objects
    }

    /// The SELECTs of the owners whose members some rows of `table` may have changed, each
    /// with one argument, those rows' rowids as a JSON array; `listing` is the table the
    /// SELECT reads. A many-to-many's owners come from its join rows and, since a member is
    /// listed only while its destination row exists, from the join rows naming a destination
    /// row; a to-many through a key column, from the destination rows.
    private static func ownerQueries(
        _ mapping: StoreMapping, entity: String, relationship: RelationshipDescription
    ) -> [(table: String, listing: String, sql: String)] {
        let restriction = " IN (SELECT value FROM json_each(?))"
        guard let destination = mapping.table(forEntity: relationship.destinationEntity)?.name else { return [] }
        if let join = mapping.joinTable(forRelationship: relationship.name, ofEntity: entity) {
            let select = "SELECT \(join.sourceColumn.quotedSQLIdentifier) FROM \(join.table.quotedSQLIdentifier) WHERE "
            return [
                (join.table, join.table, select + "rowid" + restriction),
                (destination, join.table, select + join.destinationColumn.quotedSQLIdentifier + restriction),
            ]
        }
        let key =
            mapping.columns(forProperty: relationship.name, ofEntity: entity).first { $0.role == .toManyKeyWithoutInverse }
            ?? relationship.inverseName.flatMap { inverse in
                mapping.columns(forProperty: inverse, ofEntity: relationship.destinationEntity).first { $0.role == .toOneKey }
            }
        guard let key else { return [] }
        let column = key.name.quotedSQLIdentifier
        return [(destination, destination, "SELECT \(column) FROM \(destination.quotedSQLIdentifier) WHERE rowid" + restriction + " AND \(column) IS NOT NULL")]
    }
}
