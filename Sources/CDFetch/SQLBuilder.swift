import CDBase
import CDMapping
import CDModel
import CDPredicate
import CDStore
import Foundation
import GRDB

/// Builds the parts of one statement for ``FetchSQL``: table aliases (`t0`, `t1`, … in order of
/// use, subqueries included, as Core Data numbers them), joins, bound arguments and SQL text.
///
/// Spacing follows Core Data's logs: a column term carries a leading space (`WHERE  t0.ZAGE > ?`,
/// `( t0.ZA = ? AND  t0.ZB = ?)`, ` NOT (  t1.ZX IS NOT NULL)`), subqueries do not.
final class SQLBuilder {
    /// A table alias and the entity whose rows it reads.
    struct Scope {
        var alias: String
        var entity: String
    }

    /// One joined table: `JOIN ZTAG t1 ON …` or `LEFT OUTER JOIN ZTAG t1 ON …`.
    struct Join {
        var table: String
        var alias: String
        var on: String
        /// A `LEFT OUTER JOIN`: the owner's row is kept, NULL-padded, when nothing joins.
        var isOuter: Bool

        var sql: String { (isOuter ? "LEFT OUTER JOIN " : "JOIN ") + "\(table) \(alias) ON \(on)" }
    }

    let model: ManagedObjectModel
    let mapping: StoreMapping
    var arguments: [DatabaseValue] = []
    var aliasCount = 1
    /// Joins of the statement being built; a subquery collects its own while it is built.
    var joins: [Join] = []
    /// The index in `joins` of each to-one join, reused by later key paths through the same
    /// relationship from the same alias (one row per object, so sharing it changes no answer).
    var toOneJoins: [String: Int] = [:]
    /// Aliases whose rows may be NULL-padded (outer-joined), so a to-one join from them must be
    /// outer too, or it would drop the row an outer join kept.
    var outerAliases: Set<String> = []
    var needsDistinct = false
    /// `SUBQUERY` variables in scope.
    var variables: [String: Scope] = [:]

    init(model: ManagedObjectModel, mapping: StoreMapping) {
        self.model = model
        self.mapping = mapping
    }

    var joinClause: String { joins.map { " " + $0.sql }.joined() }

    func newAlias() -> String {
        defer { aliasCount += 1 }
        return "t\(aliasCount)"
    }

    // MARK: Entities and key paths

    /// The `Z_ENT` restriction of a sub-entity fetch (of `entity` alone, without its
    /// sub-entities); nil when every row of the table qualifies.
    func entityRestriction(_ entity: String, table: MappedTable, includesSubentities: Bool) -> String? {
        let ents = includesSubentities ? mapping.entityNumbers(includingSubentitiesOf: entity) : mapping.entityNumber(of: entity).map { [$0] } ?? []
        let tableEnts = table.entities.compactMap { mapping.entityNumber(of: $0) }
        guard Set(tableEnts).subtracting(ents).isEmpty == false, let low = ents.first, let high = ents.last else { return nil }
        if ents.count == 1 {
            return " t0.Z_ENT = " + bind(low.databaseValue)
        }
        if high - low + 1 == ents.count {
            return "( t0.Z_ENT >= " + bind(low.databaseValue) + " AND  t0.Z_ENT <= " + bind(high.databaseValue) + ")"
        }
        return " t0.Z_ENT IN (" + ents.map { bind($0.databaseValue) }.joined(separator: ", ") + ")"
    }

    /// What a key path ends at.
    enum Resolved {
        /// A stored attribute's column (`t0.ZNAME`).
        case attribute(String, AttributeDescription)
        /// A to-one relationship's foreign key column.
        case toOne(String, destination: String)
        /// A to-many relationship and what follows it in the key path.
        case toMany(owner: Scope, RelationshipDescription, rest: [KeyPathComponent])
    }

    /// Follows `components` from `scope`, joining through to-one relationships. The joins are
    /// `JOIN` where an object without a destination could not match anyway (a comparison that a
    /// NULL never satisfies, reached through AND alone: what Core Data logs), and
    /// `LEFT OUTER JOIN` when `outer` is set — under OR or NOT, for `== nil`, for sort keys — so
    /// the key path reads as nil instead of dropping the object.
    func resolve(_ components: [KeyPathComponent], from scope: Scope, outer: Bool = false) throws(FetchSQLError) -> Resolved {
        var scope = scope
        var index = 0
        while index < components.count {
            guard case .key(let name) = components[index] else {
                throw .collectionOperatorWithoutToMany(name: Self.operatorName(components[index]))
            }
            guard let property = model.allProperties(of: scope.entity).first(where: { $0.name == name }) else {
                throw .unknownProperty(entity: scope.entity, name: name, known: model.allProperties(of: scope.entity).map(\.name).sorted())
            }
            let isLast = index == components.count - 1
            switch property {
            case .attribute(let attribute):
                guard isLast else { throw .keyAfterAttribute(entity: scope.entity, name: name) }
                guard !attribute.common.isTransient,
                    let column = mapping.columns(forProperty: name, ofEntity: scope.entity).first(where: { $0.role == .attribute })
                else {
                    throw .transientAttribute(entity: scope.entity, name: name)
                }
                return .attribute("\(scope.alias).\(column.name.renderedSQLIdentifier)", attribute)
            case .relationship(let relationship) where relationship.isToMany:
                return .toMany(owner: scope, relationship, rest: Array(components[(index + 1)...]))
            case .relationship(let relationship):
                guard let key = mapping.columns(forProperty: name, ofEntity: scope.entity).first(where: { $0.role == .toOneKey }) else {
                    throw .noForeignKey(entity: scope.entity, relationship: name)
                }
                if isLast { return .toOne("\(scope.alias).\(key.name.renderedSQLIdentifier)", destination: relationship.destinationEntity) }
                scope = try join(toOne: relationship, key: key.name, from: scope, outer: outer)
            case .fetched:
                throw .fetchedProperty(entity: scope.entity, name: name)
            }
            index += 1
        }
        throw .emptyKeyPath
    }

    static func operatorName(_ component: KeyPathComponent) -> String {
        if case .collectionOperator(let op) = component { return op.rawValue }
        return ""
    }

    func join(toOne relationship: RelationshipDescription, key: String, from scope: Scope, outer: Bool) throws(FetchSQLError) -> Scope {
        let outer = outer || outerAliases.contains(scope.alias)
        let cacheKey = scope.alias + "." + relationship.name
        if let index = toOneJoins[cacheKey] {
            if outer { markOuter(index) }
            return Scope(alias: joins[index].alias, entity: relationship.destinationEntity)
        }
        let alias = newAlias()
        joins.append(
            Join(
                table: try tableName(of: relationship.destinationEntity), alias: alias,
                on: "\(scope.alias).\(key.renderedSQLIdentifier) = \(alias).Z_PK", isOuter: false))
        toOneJoins[cacheKey] = joins.count - 1
        if outer { markOuter(joins.count - 1) }
        return Scope(alias: alias, entity: relationship.destinationEntity)
    }

    /// Turns a join outer. A join made inner earlier served a comparison that its NULL row
    /// could not satisfy, reached through AND alone, so its own inner joins may stay.
    func markOuter(_ index: Int) {
        joins[index].isOuter = true
        outerAliases.insert(joins[index].alias)
    }

    func tableName(of entity: String) throws(FetchSQLError) -> String {
        guard let table = mapping.table(forEntity: entity) else { throw .noTable(entity: entity) }
        return table.name.renderedSQLIdentifier
    }

    /// A to-many relationship's members reached from their owner's scope.
    struct MemberPath {
        /// The tables, keys and order column, written by ``ToManyPath`` (CDStore), which also
        /// writes the `ObjectReader`'s member reads.
        var toMany: ToManyPath
        /// `owner.Z_PK = member.key`
        var correlation: String
        /// The scope of the member rows, when a destination table is part of the path.
        var members: Scope?
        /// What `COUNT(…)` counts: the member key.
        var countColumn: String { toMany.memberKey }
        var tables: [ToManyPath.Table] { toMany.tables }
    }

    /// Members through the inverse's foreign key, a join table, or the hidden key of a to-many
    /// without inverse (``ToManyPath``). `needsMembers`: join the destination table even
    /// for a many-to-many (to test or aggregate member attributes).
    func memberPath(of relationship: RelationshipDescription, owner: Scope, needsMembers: Bool) throws(FetchSQLError) -> MemberPath {
        let path: ToManyPath
        do {
            path = try ToManyPath(relationship, owner: owner.entity, mapping: mapping, needsMembers: needsMembers) { newAlias() }
        } catch {
            if case .destinationWithoutTable(_, _, let destination) = error { throw .noTable(entity: destination) }
            throw .noRelationshipStorage(entity: owner.entity, relationship: relationship.name)
        }
        return MemberPath(
            toMany: path, correlation: path.correlation(owner: owner.alias),
            members: path.members.map { Scope(alias: $0, entity: relationship.destinationEntity) })
    }

    /// Runs `body` with a fresh join list, for a subquery's own `FROM`; returns its joins and
    /// whether they join to-many members (rows repeat).
    func collectingJoins<T>(_ body: () throws(FetchSQLError) -> T) throws(FetchSQLError) -> (T, [Join], Bool) {
        let saved = (joins, toOneJoins, needsDistinct)
        joins = []
        toOneJoins = [:]
        needsDistinct = false
        defer { (joins, toOneJoins, needsDistinct) = saved }
        let result = try body()
        return (result, joins, needsDistinct)
    }

    /// Joins a to-many relationship's members into the statement for one quantified comparison:
    /// a new join (new aliases) for each comparison, as Core Data's logs show for two
    /// relationships in one OR. Outer (`LEFT OUTER JOIN`) unless the comparison is an ANY
    /// reached through AND alone, where an object without members could not match anyway.
    func joinMembers(_ path: MemberPath, outer: Bool) {
        for table in path.tables {
            joins.append(Join(table: table.name, alias: table.alias, on: table.on ?? path.correlation, isOuter: outer))
            if outer { outerAliases.insert(table.alias) }
        }
        needsDistinct = true
    }

    /// `(SELECT <selection> FROM <members> WHERE (<correlation>) [AND <condition>])`.
    func subquery(_ path: MemberPath, select: String, condition: String?, extraJoins: [Join]) -> String {
        let from = path.toMany.fromClause + extraJoins.map { " " + $0.sql }.joined()
        let tail = condition.map { " AND " + $0 } ?? " "
        return "(SELECT \(select) FROM \(from) WHERE (\(path.correlation))\(tail))"
    }
}
