import CDBase
import CDMapping
import CDModel

/// How the members of a to-many relationship are reached from their owner's row, as SQL: through
/// a join table (a many-to-many), the hidden key column of a to-many without inverse, or the
/// inverse's foreign key (store-format.md §7.6), with the `Z_FOK_` column of an ordered one.
///
/// The package's one writer of this SQL. It lives here, below CDFetch, because both readers of
/// members need it: CDFetch's SQL builder joins and counts members with it (`rel.@count`, `ANY`,
/// `SUBQUERY`, in Core Data's spelling: bare names, `t<n>` aliases; a name that is not plain is
/// quoted, `renderedSQLIdentifier`), and ``ObjectReader`` fetches
/// the members of included relationships (and counts them) with ``membersSQL(of:owner:mapping:counting:)``,
/// for commands and modules that do not fetch through CDFetch (validate, watch).
package struct ToManyPath: Sendable {
    /// One aliased table of the path; `on` joins it to the table before it (nil for the first).
    package struct Table: Sendable {
        /// The table's name as SQL: bare, or quoted when it needs to be.
        package var name: String
        package var alias: String
        package var on: String?
    }

    /// The tables that hold the members, first the one with the owner's key.
    package var tables: [Table]
    /// The column holding the owner's `Z_PK`, qualified: the join table's source column, or the
    /// members' foreign key.
    package var ownerKey: String
    /// The alias of the destination's rows, when its table is part of ``tables``.
    package var members: String?
    /// The members' `Z_PK` as the path reads it: the join table's destination column, or
    /// `<members>.Z_PK`.
    package var memberKey: String
    /// The qualified `Z_FOK_` column that orders an ordered relationship's members.
    package var orderColumn: String?

    /// The path of `relationship` (declared by `owner` or an ancestor). `needsMembers` joins the
    /// destination table after a join table too (to read or test the members' own columns).
    /// `alias` names each table in turn: the join table first, then the destination.
    package init(
        _ relationship: RelationshipDescription, owner: String, mapping: StoreMapping, needsMembers: Bool, alias: () -> String
    ) throws(StoreError) {
        let destination = relationship.destinationEntity
        func destinationTable() throws(StoreError) -> String {
            guard let table = mapping.table(forEntity: destination) else {
                throw StoreError.destinationWithoutTable(entity: owner, relationship: relationship.name, destination: destination)
            }
            return table.name.renderedSQLIdentifier
        }
        if let join = mapping.joinTable(forRelationship: relationship.name, ofEntity: owner) {
            let link = alias()
            tables = [Table(name: join.table.renderedSQLIdentifier, alias: link, on: nil)]
            ownerKey = "\(link).\(join.sourceColumn.renderedSQLIdentifier)"
            memberKey = "\(link).\(join.destinationColumn.renderedSQLIdentifier)"
            orderColumn = join.orderColumn.map { "\(link).\($0.renderedSQLIdentifier)" }
            if needsMembers {
                let table = try destinationTable()
                let memberAlias = alias()
                tables.append(Table(name: table, alias: memberAlias, on: "\(memberKey) = \(memberAlias).Z_PK"))
                members = memberAlias
            }
            return
        }
        let key: String
        var order: String?
        if let hidden = mapping.columns(forProperty: relationship.name, ofEntity: owner).first(where: { $0.role == .toManyKeyWithoutInverse }) {
            key = hidden.name
        } else if let inverse = relationship.inverseName,
            case let columns = mapping.columns(forProperty: inverse, ofEntity: destination),
            let inverseKey = columns.first(where: { $0.role == .toOneKey })
        {
            key = inverseKey.name
            order = columns.first { $0.role == .toOneOrder }?.name
        } else {
            throw StoreError.relationshipNotStored(entity: owner, relationship: relationship.name)
        }
        let table = try destinationTable()
        let memberAlias = alias()
        tables = [Table(name: table, alias: memberAlias, on: nil)]
        ownerKey = "\(memberAlias).\(key.renderedSQLIdentifier)"
        members = memberAlias
        memberKey = "\(memberAlias).Z_PK"
        orderColumn = order.map { "\(memberAlias).\($0.renderedSQLIdentifier)" }
    }

    /// `<owner>.Z_PK = <ownerKey>`: the path tied to the owner row aliased `owner`.
    package func correlation(owner: String) -> String {
        "\(owner).Z_PK = \(ownerKey)"
    }

    /// The tables as a `FROM` list: `Z_1TAGS t1 JOIN ZTAG t2 ON t1.Z_2TAGS = t2.Z_PK`.
    package var fromClause: String {
        tables.enumerated().map { index, table in
            index == 0 ? "\(table.name) \(table.alias)" : " JOIN \(table.name) \(table.alias) ON \(table.on ?? "")"
        }.joined()
    }

    /// The members of one owner, whose `Z_PK` is bound to the one `?`: their `Z_PK` and `Z_ENT`,
    /// in `Z_FOK_` order for an ordered relationship, else by `Z_PK`; with `counting`, their number.
    package static func membersSQL(
        of relationship: RelationshipDescription, owner: String, mapping: StoreMapping, counting: Bool
    ) throws(StoreError) -> String {
        var count = 0
        let path = try ToManyPath(relationship, owner: owner, mapping: mapping, needsMembers: true) {
            defer { count += 1 }
            return "t\(count)"
        }
        let members = path.members ?? ""
        if counting {
            return "SELECT COUNT(*) FROM \(path.fromClause) WHERE \(path.ownerKey) = ?"
        }
        let order = (path.orderColumn.map { [$0] } ?? []) + ["\(members).Z_PK"]
        return "SELECT \(members).Z_PK, \(members).Z_ENT FROM \(path.fromClause) WHERE \(path.ownerKey) = ? ORDER BY "
            + order.joined(separator: ", ")
    }
}
