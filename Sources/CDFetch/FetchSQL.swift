import CDBase
import CDMapping
import CDModel
import CDPredicate
import CDStore
import Foundation
import GRDB

/// Translates ``FetchRequest``s into SQL the way Core Data does (docs/format/sqldebug.md §5), with
/// table and column names taken only from the ``StoreMapping`` and every value bound.
///
/// The shapes, and where they come from:
/// * objects: `SELECT 0, t0.Z_PK, t0.Z_OPT, <columns in table order> FROM ZTABLE t0`; a table
///   that holds a hierarchy selects `t0.Z_ENT` first (logged);
/// * a sub-entity is restricted by `Z_ENT`: `t0.Z_ENT = ?` for a leaf, else the range
///   `( t0.Z_ENT >= ? AND  t0.Z_ENT <= ?)`, which works because Core Data numbers each
///   sub-tree contiguously (seen in every corpus store; the SQL itself is unverified);
/// * a to-one key path joins: `JOIN ZOTHER t1 ON t0.ZOTHER = t1.Z_PK` (logged) where only a
///   comparison a NULL cannot satisfy reaches it through AND; under OR or NOT, and for `== nil`,
///   the join is a `LEFT OUTER JOIN`, so a nil step reads as nil instead of dropping the object;
/// * `rel.@count`: `(SELECT COUNT(t1.Z_PK) FROM ZB t1 WHERE (t0.Z_PK = t1.ZA) )`, through the
///   join table for a many-to-many (logged); `@sum`/`@avg`/`@min`/`@max` use the same subquery;
/// * `ANY` (and a to-many key path without a quantifier, and `%@ IN rel`, as in Core Data) joins
///   the members and selects `DISTINCT`: an inner join when only AND leads to it, else a
///   `LEFT OUTER JOIN` (logged: `ANY e2a == %@ OR ANY e2b == %@`, issue 23); `NONE` is a
///   `LEFT OUTER JOIN` with `NOT (…)` (logged for `!= nil`). Like Core Data's, that `NONE` (and
///   `NOT (ANY …)`) matches objects with any member row failing the comparison; "no member
///   matches" is `SUBQUERY(rel, $m, …).@count == 0`;
/// * `ALL` and `SUBQUERY(…).@count` are correlated counts (cdstore's translation); a SUBQUERY
///   whose predicate joins the members' own to-many relationships counts `DISTINCT` members;
/// * `BEGINSWITH`, `ENDSWITH`, `CONTAINS` and `==`/`!=` with `[c]`/`[d]` call
///   `NSCoreDataStringSearch`, `LIKE` and `MATCHES` call `NSCoreDataLike`/`NSCoreDataMatches`
///   (see ``CoreDataSQLFunctions``);
/// * counts: `SELECT COUNT(*) FROM ZTABLE`, `COUNT(DISTINCT t0.Z_PK)` with joins (logged);
///   sums use SQLite's `total()` (logged).
///
/// Dates are bound as seconds since 2001 (an ISO-8601 string compared with a date attribute is
/// converted), booleans as 0/1, UUID strings compared with a UUID attribute as 16-byte blobs, and
/// an object ID compared with an object (a to-one relationship, a to-many member, `SELF`, a
/// SUBQUERY variable) as the object's `Z_PK`. A comparison with nil is SQL's: UNKNOWN except
/// `== nil`/`!= nil`, so `!=`, `<` or NOT never match a nil value (Core Data's quirk).
package struct FetchSQL: Sendable {
    package let model: ManagedObjectModel
    package let mapping: StoreMapping

    package init(model: ManagedObjectModel, mapping: StoreMapping) {
        self.model = model
        self.mapping = mapping
    }

    /// The statement for `request`. `takesLast` is not applied here: the caller counts first
    /// and sets the offset.
    /// An entity the store cannot be asked for is a ``StoreError/unknownEntity(name:known:)``;
    /// everything else that cannot be translated is a ``FetchSQLError``.
    package func statement(for request: FetchRequest) throws -> FetchStatement {
        guard model.entity(named: request.entity) != nil, let table = mapping.table(forEntity: request.entity) else {
            throw StoreError.unknownEntity(request.entity, mapping: mapping, model: model)
        }
        let builder = SQLBuilder(model: model, mapping: mapping)
        let root = SQLBuilder.Scope(alias: "t0", entity: request.entity)
        var conditions: [String] = []
        if let restriction = builder.entityRestriction(request.entity, table: table, includesSubentities: request.includesSubentities) {
            conditions.append(restriction)
        }
        if let predicate = request.predicate, predicate != .constant(true) {
            conditions.append(try builder.predicate(predicate, scope: root))
        }
        if request.result == .objects, let position = request.keyset?.after {
            conditions.append(try builder.keysetCondition(after: position, descriptors: request.sortDescriptors, scope: root))
        }
        let whereClause = conditions.isEmpty ? "" : " WHERE " + SQLBuilder.conjunction(conditions, "AND")
        let tableName = table.name.renderedSQLIdentifier

        switch request.result {
        case .count:
            let from = " FROM \(tableName)" + (conditions.isEmpty ? "" : " t0") + builder.joinClause
            let counted = builder.joins.isEmpty ? "COUNT(*)" : "COUNT(DISTINCT t0.Z_PK)"
            return FetchStatement(
                kind: .count, entity: request.entity, sql: "SELECT \(counted)\(from)\(whereClause)",
                arguments: builder.arguments, columns: [], valueColumns: [("count", nil)])
        case .objects:
            let sorted = try builder.orderBy(request.sortDescriptors, scope: root)
            let order = request.keyset == nil ? sorted : SQLBuilder.keysetOrder(after: sorted, scope: root)
            let hierarchy = table.entities.count > 1
            let columns = objectColumns(of: request.entity, in: table, includesSubentities: request.includesSubentities)
            var selectList = [hierarchy ? "t0.Z_ENT" : "0", "t0.Z_PK", "t0.Z_OPT"] + columns.map { "t0." + $0.renderedSQLIdentifier }
            var selectedColumns = [hierarchy ? "Z_ENT" : nil, "Z_PK", "Z_OPT"] + columns
            var lengthColumns: [String: Int] = [:]
            if let limit = request.largeValueLimit {
                for (offset, column) in columns.enumerated() where largeValueColumn(column, in: table) {
                    let reference = "t0." + column.renderedSQLIdentifier
                    selectList[offset + 3] = ObjectQuery.limitedValue(reference, limit: limit)
                    lengthColumns[column] = selectList.count
                    selectList.append("length(\(reference))")
                    selectedColumns.append(nil)
                }
            }
            let sql =
                "SELECT " + (builder.needsDistinct ? "DISTINCT " : "") + selectList.joined(separator: ", ")
                + " FROM \(tableName) t0" + builder.joinClause + whereClause + order + Self.limitClause(request)
            var statement = FetchStatement(
                kind: .objects, entity: request.entity, sql: sql, arguments: builder.arguments,
                columns: selectedColumns, valueColumns: [])
            statement.lengthColumns = lengthColumns
            return statement
        case .distinct(let keyPaths):
            guard !keyPaths.isEmpty else { throw FetchSQLError.distinctWithoutAttributes }
            var selected: [String] = []
            var valueColumns: [(String, AttributeType?)] = []
            for keyPath in keyPaths {
                let (reference, attribute) = try builder.valueColumn(keyPath, scope: root, purpose: "distinct values")
                selected.append(reference)
                valueColumns.append((keyPath, attribute?.type))
            }
            let order = try builder.orderBy(request.sortDescriptors, scope: root)
            let sql =
                "SELECT DISTINCT " + selected.joined(separator: ", ") + " FROM \(tableName) t0" + builder.joinClause
                + whereClause + order + Self.limitClause(request)
            return FetchStatement(
                kind: .values, entity: request.entity, sql: sql, arguments: builder.arguments,
                columns: [], valueColumns: valueColumns)
        case .aggregate(let function, let keyPath):
            if function == .count, let member = try builder.toManyCountColumn(keyPath, scope: root) {
                return FetchStatement(
                    kind: .values, entity: request.entity,
                    sql: "SELECT COUNT( \(member)) FROM \(tableName) t0" + builder.joinClause + whereClause,
                    arguments: builder.arguments, columns: [], valueColumns: [("count(\(keyPath))", .integer64)])
            }
            let (reference, attribute) = try builder.valueColumn(keyPath, scope: root, purpose: "\(function.rawValue):")
            // SQLite would sum text as 0.0; Core Data refuses sum and average of a non-number.
            if function == .sum || function == .average, let attribute, !Self.summable.contains(attribute.type) {
                throw FetchSQLError.aggregateNeedsNumber(function: function.rawValue, keyPath: keyPath, type: attribute.type)
            }
            let sqlFunction: String
            var type = attribute?.type
            switch function {
            case .sum: sqlFunction = "total"
            case .average:
                sqlFunction = "avg"
                if type?.isInteger == true { type = .double }
            case .min: sqlFunction = "min"
            case .max: sqlFunction = "max"
            case .count:
                sqlFunction = "COUNT"
                type = .integer64
            }
            let sql = "SELECT \(sqlFunction)( \(reference)) FROM \(tableName) t0" + builder.joinClause + whereClause
            return FetchStatement(
                kind: .values, entity: request.entity, sql: sql, arguments: builder.arguments,
                columns: [], valueColumns: [("\(function.rawValue)(\(keyPath))", type)])
        }
    }

    /// The attribute types `sum` and `average` add up: numbers, and booleans stored as 0 and 1.
    static let summable: Set<AttributeType> = [.integer16, .integer32, .integer64, .decimal, .double, .float, .boolean]

    /// Whether `column` of `table` holds a binary or transformable attribute, whose values a
    /// ``FetchRequest/largeValueLimit`` leaves unread when long.
    func largeValueColumn(_ column: String, in table: MappedTable) -> Bool {
        guard let mapped = table.columns.first(where: { $0.name == column && $0.role == .attribute }),
            let entity = mapped.entity, let property = mapped.property,
            case .attribute(let attribute)? = model.allProperties(of: entity).first(where: { $0.name == property })
        else { return false }
        return ObjectQuery.limitsValues(of: attribute.type)
    }

    /// The columns an object fetch reads after `Z_PK` and `Z_OPT`, in the order Core Data's logs
    /// show (sqldebug.md excerpts 1, 10, 12, 18, 19), which is not the table's order: entity by
    /// entity (the root first, then down to the fetched entity, then its sub-entities), each
    /// one's stored attributes by name, then its to-one relationships by name, each as its key,
    /// its `Z<n>_` entity-type companion and its `Z_FOK_` order column. Without sub-entities,
    /// their columns are not read.
    func objectColumns(of entity: String, in table: MappedTable, includesSubentities: Bool) -> [String] {
        let ancestors = model.lineage(of: entity).reversed().map(\.name)
        let descendants =
            includesSubentities
            ? mapping.entityNumbers(includingSubentitiesOf: entity).compactMap { ent in
                mapping.entities.first { $0.number == ent }?.name
            }.filter { $0 != entity } : []
        var result: [String] = []
        var seen: Set<String> = []
        for name in ancestors + descendants {
            guard let description = model.entity(named: name) else { continue }
            let own = table.columns.filter { $0.entity == name }
            func add(_ property: String, roles: [ColumnRole]) {
                for role in roles {
                    for column in own where column.property == property && column.role == role && seen.insert(column.name).inserted {
                        result.append(column.name)
                    }
                }
            }
            for attribute in description.attributes.sorted(by: { $0.name < $1.name }) {
                add(attribute.name, roles: [.attribute])
            }
            for relationship in description.relationships.filter({ !$0.isToMany }).sorted(by: { $0.name < $1.name }) {
                add(relationship.name, roles: [.toOneKey, .toOneEntityType, .toOneOrder])
            }
        }
        return result
    }

    /// ` LIMIT n` and ` OFFSET m`; SQLite needs a limit before an offset (`-1`: none).
    static func limitClause(_ request: FetchRequest) -> String {
        switch (request.limit, request.offset) {
        case (nil, nil), (nil, 0?): return ""
        case (let limit?, nil), (let limit?, 0?): return " LIMIT \(limit)"
        case (let limit, let offset?): return " LIMIT \(limit ?? -1) OFFSET \(offset)"
        }
    }
}
