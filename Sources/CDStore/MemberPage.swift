import CDMapping
import CDModel
import GRDB

/// Where a page of a to-many relationship's members ends: the last member's `Z_FOK_` value
/// (for a relationship the store keeps an order for; nil otherwise) and its `Z_PK`.
package struct MemberPosition: Equatable, Sendable {
    package var order: DatabaseValue?
    package var primaryKey: Int64

    package init(order: DatabaseValue?, primaryKey: Int64) {
        self.order = order
        self.primaryKey = primaryKey
    }
}

extension ObjectReader {
    /// Whether the members of `relationship` (of `owner`'s objects) come in an order column's
    /// order (``MemberPosition/order`` set) rather than by `Z_PK` alone.
    package func hasMemberOrder(_ relationship: RelationshipDescription, owner: String) throws -> Bool {
        var count = 0
        let path = try ToManyPath(relationship, owner: owner, mapping: mapping, needsMembers: true) {
            defer { count += 1 }
            return "t\(count)"
        }
        return path.orderColumn != nil
    }

    /// At most `limit` members of `relationship` of the object `primaryKey` of `owner`, after
    /// `after`, in the order `--include` lists them (``ToManyPath/membersSQL(of:owner:mapping:counting:)``:
    /// the `Z_FOK_` column of an ordered relationship, then `Z_PK`), each with its position.
    ///
    /// One statement per page, a keyset on (order, `Z_PK`), instead of reading the whole list to
    /// cut one page from it. An unordered relationship's key column is indexed (its index holds
    /// `Z_PK` too), so a page costs what the first one costs. An order column is indexed with
    /// the owner's key only in some stores (Photos' `RADAR_…` indexes); elsewhere SQLite sorts
    /// the owner's members for each page, keeping only a page of them in memory.
    /// SQLite sorts NULL first, so after a NULL order value come the NULLs with a larger `Z_PK`,
    /// then every non-NULL value; a value compares as `ORDER BY` sorts it (same collation).
    package func members(
        of relationship: RelationshipDescription, owner: String, primaryKey: Int64, after: MemberPosition?, limit: Int
    ) throws -> [(id: ObjectID, position: MemberPosition)] {
        var count = 0
        let path = try ToManyPath(relationship, owner: owner, mapping: mapping, needsMembers: true) {
            defer { count += 1 }
            return "t\(count)"
        }
        let memberKey = "\(path.members ?? "").Z_PK"
        var conditions = ["\(path.ownerKey) = ?"]
        var arguments: [DatabaseValue] = [primaryKey.databaseValue]
        if let after {
            switch (path.orderColumn, after.order) {
            case (let order?, let value?) where value.isNull:
                conditions.append("((\(order) IS NULL AND \(memberKey) > ?) OR \(order) IS NOT NULL)")
                arguments.append(after.primaryKey.databaseValue)
            case (let order?, let value?):
                conditions.append("(\(order) > ? OR (\(order) = ? AND \(memberKey) > ?))")
                arguments += [value, value, after.primaryKey.databaseValue]
            case (nil, nil):
                conditions.append("\(memberKey) > ?")
                arguments.append(after.primaryKey.databaseValue)
            default:
                throw StoreError.memberPositionMismatch(relationship: relationship.name)
            }
        }
        let order = (path.orderColumn.map { [$0] } ?? []) + [memberKey]
        let sql =
            "SELECT \(memberKey), \(path.members ?? "").Z_ENT, \(path.orderColumn ?? "NULL") FROM \(path.fromClause) WHERE "
            + conditions.joined(separator: " AND ") + " ORDER BY " + order.joined(separator: ", ") + " LIMIT ?"
        arguments.append(limit.databaseValue)
        let hasOrder = path.orderColumn != nil
        return try snapshot.read { db in
            var result: [(id: ObjectID, position: MemberPosition)] = []
            let rows = try Row.fetchCursor(db, sql: sql, arguments: StatementArguments(arguments))
            while let row = try rows.next() {
                // As `--include`: a member whose key is not an integer has no object ID.
                guard let memberPK = StoredInteger(row, 0).value else { continue }
                let memberEnt = StoredInteger(row, 1).value(in: EntityRegistry.entityNumbers) ?? 0
                let position = MemberPosition(order: hasOrder ? row[2] as DatabaseValue : nil, primaryKey: memberPK)
                result.append((objectID(pk: memberPK, ent: memberEnt, declared: relationship.destinationEntity), position))
            }
            return result
        }
    }
}
