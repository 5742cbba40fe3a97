import CDBase
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
///
/// When the destination has a `--key`, the member's identity (its key values, and its entity
/// when the destination's entities have different keys) is read beside each member and stands
/// for it, and unordered members are listed by it, so renumbered members still compare equal.
struct MemberQuery {
    let sql: String
    let arguments: StatementArguments
    /// How many identity values follow owner, `Z_ENT` and `Z_PK`; 0 compares by `Z_PK`.
    let memberKeyCount: Int

    /// `memberIdentity`: SQL expressions over the member's row, aliased `d`, that stand for it
    /// (empty to compare members by object); `restriction` keeps the owners the rows' scan reads.
    init?(
        reader: ObjectReader, entity: String, relationship: RelationshipDescription, keyColumns: [String], memberIdentity: [String],
        restriction: ObjectRestriction? = nil
    ) {
        let mapping = reader.mapping
        guard let ownerTable = mapping.table(forEntity: entity)?.name.quotedSQLIdentifier,
            let ownerEnt = mapping.entityNumber(of: entity),
            let destinationTable = mapping.table(forEntity: relationship.destinationEntity)?.name.quotedSQLIdentifier
        else { return nil }
        // The member's identity, aliased k0, k1, … in the members' subquery.
        let keys = memberIdentity.enumerated().map { ", \($1) AS k\($0)" }.joined()
        let members: String
        if let join = mapping.joinTable(forRelationship: relationship.name, ofEntity: entity) {
            let destination = "j." + join.destinationColumn.quotedSQLIdentifier
            members =
                "SELECT j.\(join.sourceColumn.quotedSQLIdentifier) AS owner, d.Z_ENT AS ent, \(destination) AS pk, "
                + (join.orderColumn.map { "j." + $0.quotedSQLIdentifier } ?? "NULL") + " AS position" + keys
                + " FROM \(join.table.quotedSQLIdentifier) j JOIN \(destinationTable) d ON d.Z_PK = \(destination)"
        } else if let hidden = mapping.columns(forProperty: relationship.name, ofEntity: entity).first(where: { $0.role == .toManyKeyWithoutInverse }) {
            let column = hidden.name.quotedSQLIdentifier
            members =
                "SELECT d.\(column) AS owner, d.Z_ENT AS ent, d.Z_PK AS pk, NULL AS position\(keys) FROM \(destinationTable) d WHERE d.\(column) IS NOT NULL"
        } else if let inverse = relationship.inverseName {
            let columns = mapping.columns(forProperty: inverse, ofEntity: relationship.destinationEntity)
            guard let key = columns.first(where: { $0.role == .toOneKey })?.name.quotedSQLIdentifier else { return nil }
            let order = columns.first { $0.role == .toOneOrder }.map { "d." + $0.name.quotedSQLIdentifier } ?? "NULL"
            members =
                "SELECT d.\(key) AS owner, d.Z_ENT AS ent, d.Z_PK AS pk, \(order) AS position\(keys) FROM \(destinationTable) d WHERE d.\(key) IS NOT NULL"
        } else {
            return nil
        }
        let ownerOrder = (keyColumns.map { "o." + $0.quotedSQLIdentifier } + ["o.Z_PK"]).joined(separator: ", ")
        let memberKeys = memberIdentity.indices.map { "m.k\($0)" }
        sql =
            "SELECT " + (["m.owner", "m.ent", "m.pk"] + memberKeys).joined(separator: ", ")
            + " FROM (\(members)) m JOIN \(ownerTable) o ON o.Z_PK = m.owner"
            + " WHERE o.Z_ENT = ?" + (restriction?.sql ?? "") + " ORDER BY " + ([ownerOrder, "m.position"] + memberKeys + ["m.pk"]).joined(separator: ", ")
        var arguments: StatementArguments = [ownerEnt]
        if let restriction { arguments += [restriction.keys] }
        self.arguments = arguments
        memberKeyCount = memberIdentity.count
    }
}

/// The objects a comparison is restricted to (``DiffOptions/objects``): a condition on the owner
/// table's `Z_PK`, aliased `o`, whose one argument lists the keys as a JSON array (SQLite's
/// `json_each` reads it, so any number of keys is one bound value; ``ChangedObjects`` binds its
/// rowids the same way).
struct ObjectRestriction {
    let keys: String
    let sql = " AND o.Z_PK IN (SELECT value FROM json_each(?))"

    init(_ objects: Set<Int64>) {
        keys = "[" + objects.sorted().map(String.init).joined(separator: ",") + "]"
    }
}

/// The rows of a ``MemberQuery``, taken owner by owner as the owners' scan advances.
final class MemberScan {
    private let scan: OrderedScan
    private let keyColumns: [Int32]

    /// `started: false` leaves the first step (the query's sort) to ``start()``, as for
    /// ``OrderedScan``.
    init(_ db: Database, query: MemberQuery, started: Bool = true) throws {
        scan = try OrderedScan(db, sql: query.sql, arguments: query.arguments, started: started)
        keyColumns = (0..<query.memberKeyCount).map { Int32(3 + $0) }
    }

    /// Reads the first member row of a scan made with `started: false`.
    func start() throws { try scan.advance() }

    /// The members of `owner`, which must be the owners' scan's current row: the member rows
    /// are in the same order, so they are the ones at hand, if any. Each is its destination
    /// key values when the query has them, else its (`Z_ENT`, `Z_PK`) with `Z_ENT` passed
    /// through `partner` (to B's numbers).
    func take(owner: Int64, partner: (Int) -> Int) throws -> [MemberIdentity] {
        var members: [MemberIdentity] = []
        while scan.hasRow, scan.integer(0) == owner {
            // A member whose keys are not integers has no object ID; validate reports it.
            if scan.type(2) == SQLITE_INTEGER {
                if keyColumns.isEmpty {
                    members.append(.object(MemberKey(ent: partner(Int(scan.integer(1))), pk: scan.integer(2))))
                } else {
                    members.append(.key(keyColumns.map(scan.storedValue)))
                }
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

/// What stands for a to-many member when two stores' members are compared: the object itself
/// (B's `Z_ENT` and its `Z_PK`), or, when the destination has a `--key`, its key values.
enum MemberIdentity: Hashable {
    case object(MemberKey)
    case key([StoredValue])
}

/// A value exactly as SQLite stores it: storage class and bytes, so that two values are equal
/// only when `sameRaw` would say so (1 and 1.0 differ, as they do for a to-one's key).
enum StoredValue: Hashable {
    case null
    case integer(Int64)
    case real(UInt64)
    case text([UInt8])
    case blob([UInt8])
}
