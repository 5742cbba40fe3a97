import CDModel
import CDStore
import GRDB
import GRDBSQLite

/// The SELECT listing the members of one to-many relationship for every owner of one concrete
/// entity, in the order the owners' scan reads them (their key, then `Z_PK`), and within an
/// owner in the relationship's order (`Z_FOK_` for ordered ones), else by `Z_PK`.
///
/// Members are found as a fetch finds them (store-format.md §7.6): through a many-to-many's
/// join table, the inverse to-one's key in the destination table, or the hidden key of a
/// to-many without inverse. The join with the owner table keeps only owners of the entity, so
/// the member rows come in the same order as the owners' scan.
struct MemberQuery {
    let sql: String
    let arguments: StatementArguments

    init?(reader: ObjectReader, entity: String, relationship: RelationshipDescription, keyColumns: [String]) {
        let mapping = reader.mapping
        guard let ownerTable = mapping.table(forEntity: entity)?.name.quotedDatabaseIdentifier,
              let ownerEnt = mapping.entityNumber(of: entity),
              let destinationTable = mapping.table(forEntity: relationship.destinationEntity)?.name.quotedDatabaseIdentifier else { return nil }
        let members: String
        if let join = mapping.joinTable(forRelationship: relationship.name, ofEntity: entity) {
            let destination = "j." + join.destinationColumn.quotedDatabaseIdentifier
            members = "SELECT j.\(join.sourceColumn.quotedDatabaseIdentifier) AS owner, t.Z_ENT AS ent, \(destination) AS pk, "
                + (join.orderColumn.map { "j." + $0.quotedDatabaseIdentifier } ?? "NULL") + " AS position"
                + " FROM \(join.table.quotedDatabaseIdentifier) j JOIN \(destinationTable) t ON t.Z_PK = \(destination)"
        } else if let hidden = mapping.columns(forProperty: relationship.name, ofEntity: entity).first(where: { $0.role == .toManyKeyWithoutInverse }) {
            let column = hidden.name.quotedDatabaseIdentifier
            members = "SELECT \(column) AS owner, Z_ENT AS ent, Z_PK AS pk, NULL AS position FROM \(destinationTable) WHERE \(column) IS NOT NULL"
        } else if let inverse = relationship.inverseName {
            let columns = mapping.columns(forProperty: inverse, ofEntity: relationship.destinationEntity)
            guard let key = columns.first(where: { $0.role == .toOneKey })?.name.quotedDatabaseIdentifier else { return nil }
            let order = columns.first { $0.role == .toOneOrder }?.name.quotedDatabaseIdentifier ?? "NULL"
            members = "SELECT \(key) AS owner, Z_ENT AS ent, Z_PK AS pk, \(order) AS position FROM \(destinationTable) WHERE \(key) IS NOT NULL"
        } else {
            return nil
        }
        let ownerOrder = (keyColumns.map { "o." + $0.quotedDatabaseIdentifier } + ["o.Z_PK"]).joined(separator: ", ")
        sql = "SELECT m.owner, m.ent, m.pk FROM (\(members)) m JOIN \(ownerTable) o ON o.Z_PK = m.owner"
            + " WHERE o.Z_ENT = ? ORDER BY \(ownerOrder), m.position, m.pk"
        arguments = [ownerEnt]
    }
}

/// The rows of a ``MemberQuery``, taken owner by owner as the owners' scan advances.
final class MemberScan {
    private let scan: OrderedScan

    init(_ db: Database, query: MemberQuery) throws {
        scan = try OrderedScan(db, sql: query.sql, arguments: query.arguments)
    }

    /// The members of `owner` (`Z_ENT`, `Z_PK`), which must be the owners' scan's current row:
    /// the member rows are in the same order, so they are the ones at hand, if any.
    func take(owner: Int64) throws -> [MemberKey] {
        var members: [MemberKey] = []
        while scan.hasRow, scan.integer(0) == owner {
            // A member whose keys are not integers has no object ID; validate reports it.
            if scan.type(2) == SQLITE_INTEGER {
                members.append(MemberKey(ent: Int(scan.integer(1)), pk: scan.integer(2)))
            }
            try scan.advance()
        }
        return members
    }

    /// Moves past the members of `owner`, an object only one store has.
    func skip(owner: Int64) throws {
        while scan.hasRow, scan.integer(0) == owner { try scan.advance() }
    }
}
