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
    private(set) var arguments: [DatabaseValue] = []
    private var aliasCount = 1
    /// Joins of the statement being built; a subquery collects its own while it is built.
    private(set) var joins: [Join] = []
    /// The index in `joins` of each to-one join, reused by later key paths through the same
    /// relationship from the same alias (one row per object, so sharing it changes no answer).
    private var toOneJoins: [String: Int] = [:]
    /// Aliases whose rows may be NULL-padded (outer-joined), so a to-one join from them must be
    /// outer too, or it would drop the row an outer join kept.
    private var outerAliases: Set<String> = []
    private(set) var needsDistinct = false
    /// `SUBQUERY` variables in scope.
    private var variables: [String: Scope] = [:]

    init(model: ManagedObjectModel, mapping: StoreMapping) {
        self.model = model
        self.mapping = mapping
    }

    var joinClause: String { joins.map { " " + $0.sql }.joined() }

    private func newAlias() -> String {
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

    private static func operatorName(_ component: KeyPathComponent) -> String {
        if case .collectionOperator(let op) = component { return op.rawValue }
        return ""
    }

    private func join(toOne relationship: RelationshipDescription, key: String, from scope: Scope, outer: Bool) throws(FetchSQLError) -> Scope {
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
    private func markOuter(_ index: Int) {
        joins[index].isOuter = true
        outerAliases.insert(joins[index].alias)
    }

    private func tableName(of entity: String) throws(FetchSQLError) -> String {
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
    private func collectingJoins<T>(_ body: () throws(FetchSQLError) -> T) throws(FetchSQLError) -> (T, [Join], Bool) {
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
    private func joinMembers(_ path: MemberPath, outer: Bool) {
        for table in path.tables {
            joins.append(Join(table: table.name, alias: table.alias, on: table.on ?? path.correlation, isOuter: outer))
            if outer { outerAliases.insert(table.alias) }
        }
        needsDistinct = true
    }

    /// `(SELECT <selection> FROM <members> WHERE (<correlation>) [AND <condition>])`.
    private func subquery(_ path: MemberPath, select: String, condition: String?, extraJoins: [Join]) -> String {
        let from = path.toMany.fromClause + extraJoins.map { " " + $0.sql }.joined()
        let tail = condition.map { " AND " + $0 } ?? " "
        return "(SELECT \(select) FROM \(from) WHERE (\(path.correlation))\(tail))"
    }

    // MARK: Predicates

    /// The SQL of `predicate`. `positive`: reached from the predicate's root through AND alone
    /// (no OR, no NOT), where a comparison that an object without related rows cannot satisfy
    /// may drop that object with an inner join; elsewhere joins are outer (the real log of
    /// `ANY e2a == %@ OR ANY e2b == %@` shows two `LEFT OUTER JOIN`s).
    func predicate(_ predicate: Predicate, scope: Scope, positive: Bool = true) throws(FetchSQLError) -> String {
        switch predicate {
        case .constant(let value):
            return value ? " 1 = 1" : " 1 = 0"
        case .comparison(let comparison):
            return try self.comparison(comparison, scope: scope, positive: positive)
        case .not(let inner):
            return " NOT ( " + (try self.predicate(inner, scope: scope, positive: false)) + ")"
        case .and(let parts):
            var terms: [String] = []
            for part in parts { terms.append(try self.predicate(part, scope: scope, positive: positive)) }
            return Self.conjunction(terms, "AND")
        case .or(let parts):
            var terms: [String] = []
            for part in parts { terms.append(try self.predicate(part, scope: scope, positive: false)) }
            return Self.conjunction(terms, "OR")
        case .opaque(let text):
            throw .untranslatable(text: text)
        }
    }

    /// Terms joined pairwise from the left, as an NSCompoundPredicate nests: `((a AND b) AND c)`.
    static func conjunction(_ terms: [String], _ word: String) -> String {
        guard var result = terms.first else { return "" }
        for term in terms.dropFirst() { result = "(" + result + " \(word) " + term + ")" }
        return result
    }

    /// One side of a comparison after translation.
    private enum Operand {
        /// A column or SQL expression, with the attribute (or to-one destination) typing it.
        case sql(String, attribute: AttributeDescription?, toOneDestination: String?)
        case value(Value)
        case values([Value])
    }

    /// The scope and components of a key path expression (`tags.name`, `$m.tags.name`), or nil.
    private func keyPathStart(_ expression: Expression, scope: Scope) -> (Scope, [KeyPathComponent])? {
        switch expression {
        case .keyPath(let components): return (scope, components)
        case .path(.variable(let name), let components): return variables[name].map { ($0, components) }
        default: return nil
        }
    }

    private func comparison(_ comparison: Comparison, scope: Scope, positive: Bool) throws(FetchSQLError) -> String {
        var comparison = comparison
        // `18 < age` reads as `age > 18`.
        if case .constant = comparison.left, !Self.isConstant(comparison.right), let flipped = Self.flipped(comparison.op) {
            swap(&comparison.left, &comparison.right)
            comparison.op = flipped
        }
        // `%@ IN tags` is `ANY tags == %@`, and `'x' IN tags.name` is `ANY tags.name == 'x'`.
        if comparison.op == .in, comparison.quantifier == .direct, case .constant = comparison.left,
            let (rightScope, components) = keyPathStart(comparison.right, scope: scope)
        {
            guard case .toMany(_, _, let rest) = try resolve(components, from: rightScope, outer: true),
                rest.first.map(Self.isCollectionOperator) != true
            else {
                throw .inNeedsListOrToMany
            }
            comparison = Comparison(comparison.right, .equal, comparison.left, options: comparison.options, quantifier: .any)
        }
        // A comparison that a NULL satisfies (`== nil`) reads its key path through outer joins,
        // as one under OR or NOT does: a nil step then reads as nil, as NSPredicate reads it.
        let outer = !positive || (comparison.op == .equal && comparison.right == .constant(.null))
        // A to-many key path is quantified: explicitly, or implicitly as ANY when a key follows
        // the relationship (`tags.name == "x"`), as Core Data reads it.
        if let (leftScope, leftComponents) = keyPathStart(comparison.left, scope: scope),
            case .toMany(let owner, let relationship, let rest) = try resolve(leftComponents, from: leftScope, outer: outer),
            rest.first.map(Self.isCollectionOperator) != true, comparison.quantifier != .direct || !rest.isEmpty
        {
            return try quantified(
                comparison, scope: scope, owner: owner, relationship: relationship, rest: rest,
                positive: positive, outer: outer)
        }
        guard comparison.quantifier == .direct else {
            throw .quantifierWithoutToMany(quantifier: comparison.quantifier.rawValue)
        }
        let left = try operand(comparison.left, scope: scope, outer: outer)
        let right = try operand(comparison.right, scope: scope, outer: outer)
        return try term(left, comparison.op, right, options: comparison.options)
    }

    private static func isCollectionOperator(_ component: KeyPathComponent) -> Bool {
        if case .collectionOperator = component { return true }
        return false
    }

    private static func isConstant(_ expression: Expression) -> Bool {
        switch expression {
        case .constant, .aggregate: return true
        default: return false
        }
    }

    private static func flipped(_ op: ComparisonOperator) -> ComparisonOperator? {
        switch op {
        case .equal, .notEqual: return op
        case .less: return .greater
        case .lessOrEqual: return .greaterOrEqual
        case .greater: return .less
        case .greaterOrEqual: return .lessOrEqual
        default: return nil
        }
    }

    /// `ANY`/`SOME`, `NONE` and `ALL` over a to-many key path (a bare to-many key path counts as
    /// `ANY`, as Core Data reads it). ANY and NONE join the members (Core Data's SQL: an inner
    /// join for an ANY reached through AND alone, else `LEFT OUTER JOIN`, with `DISTINCT`), so
    /// under NOT or NONE an object matches when SOME member row fails the comparison — Core
    /// Data's answer, not NSPredicate's "no member matches" (man page, QUIRKS). ALL counts the
    /// members that fail it. The right side is read from the fetched object (`scope`).
    private func quantified(
        _ comparison: Comparison, scope: Scope, owner: Scope, relationship: RelationshipDescription,
        rest: [KeyPathComponent], positive: Bool, outer: Bool
    ) throws(FetchSQLError) -> String {
        let right = try operand(comparison.right, scope: scope, outer: outer)
        switch comparison.quantifier {
        case .direct, .any, .none:
            let path = try memberPath(of: relationship, owner: owner, needsMembers: !rest.isEmpty)
            // Core Data numbers the destination table of a join table even when it does not join
            // it: the log of `ANY e2a == %@ OR ANY e2b == %@` aliases the second join table t3.
            if path.members == nil { _ = newAlias() }
            joinMembers(path, outer: comparison.quantifier == .none || !positive)
            let left = try memberOperand(path, relationship: relationship, rest: rest, outer: outer)
            let test = try term(left, comparison.op, right, options: comparison.options)
            return comparison.quantifier == .none ? " NOT ( " + test + ")" : test
        case .all:
            let path = try memberPath(of: relationship, owner: owner, needsMembers: !rest.isEmpty)
            let (test, extra, _) = try collectingJoins { () throws(FetchSQLError) -> String in
                try term(
                    try memberOperand(path, relationship: relationship, rest: rest, outer: true), comparison.op, right,
                    options: comparison.options)
            }
            return subquery(path, select: "COUNT(\(path.countColumn))", condition: " NOT ( " + test + ")", extraJoins: extra) + " = 0"
        }
    }

    /// The member-side operand of a quantified comparison: the member itself (its key, typed as
    /// the destination entity, for `== <object>` and `!= nil`) or what `rest` names from the
    /// member rows.
    private func memberOperand(
        _ path: MemberPath, relationship: RelationshipDescription, rest: [KeyPathComponent],
        outer: Bool
    ) throws(FetchSQLError) -> Operand {
        guard let members = path.members, !rest.isEmpty else {
            return .sql(" " + path.countColumn, attribute: nil, toOneDestination: relationship.destinationEntity)
        }
        switch try resolve(rest, from: members, outer: outer) {
        case .attribute(let column, let attribute): return .sql(" " + column, attribute: attribute, toOneDestination: nil)
        case .toOne(let column, let destination): return .sql(" " + column, attribute: nil, toOneDestination: destination)
        case .toMany:
            throw .severalToManySteps
        }
    }

    private func operand(_ expression: Expression, scope: Scope, outer: Bool) throws(FetchSQLError) -> Operand {
        switch expression {
        case .constant(let value):
            return .value(value)
        case .aggregate(let items):
            var values: [Value] = []
            for item in items {
                guard case .constant(let value) = item else { throw .listOfNonConstants }
                values.append(value)
            }
            return .values(values)
        case .keyPath(let components):
            return try keyPathOperand(components, scope: scope, outer: outer)
        case .path(.variable(let name), let components):
            guard let variableScope = variables[name] else { throw .unknownVariable(name: name) }
            return try keyPathOperand(components, scope: variableScope, outer: outer)
        case .variable(let name):
            guard let variableScope = variables[name] else { throw .unknownVariable(name: name) }
            return .sql(" \(variableScope.alias).Z_PK", attribute: nil, toOneDestination: variableScope.entity)
        case .path(.subquery(let collection, let variable, let predicate), let components):
            guard components == [.collectionOperator(.count)] else {
                throw .subqueryWithoutCount
            }
            return try subqueryCount(collection: collection, variable: variable, predicate: predicate, scope: scope, outer: outer)
        case .subquery:
            throw .subqueryAsValue
        case .evaluatedObject:
            return .sql(" \(scope.alias).Z_PK", attribute: nil, toOneDestination: scope.entity)
        case .path(.evaluatedObject, let components):
            return try keyPathOperand(components, scope: scope, outer: outer)
        case .path, .cast, .function, .opaque:
            throw .untranslatable(text: "\(expression)")
        }
    }

    private func keyPathOperand(_ components: [KeyPathComponent], scope: Scope, outer: Bool) throws(FetchSQLError) -> Operand {
        switch try resolve(components, from: scope, outer: outer) {
        case .attribute(let column, let attribute):
            return .sql(" " + column, attribute: attribute, toOneDestination: nil)
        case .toOne(let column, let destination):
            return .sql(" " + column, attribute: nil, toOneDestination: destination)
        case .toMany(let owner, let relationship, let rest):
            return try collectionOperand(owner: owner, relationship: relationship, rest: rest)
        }
    }

    /// `rel.@count`, `rel.@sum.key`, `@avg`, `@min`, `@max` as a correlated subquery.
    private func collectionOperand(owner: Scope, relationship: RelationshipDescription, rest: [KeyPathComponent]) throws(FetchSQLError) -> Operand {
        guard case .collectionOperator(let op)? = rest.first else {
            throw .toManyWithoutQuantifier(entity: owner.entity, relationship: relationship.name)
        }
        let memberKeys = Array(rest.dropFirst())
        if op == .count {
            guard memberKeys.isEmpty else { throw .keyAfterCount }
            let path = try memberPath(of: relationship, owner: owner, needsMembers: false)
            let sql = subquery(path, select: "COUNT(\(path.countColumn))", condition: nil, extraJoins: [])
            return .sql(sql, attribute: nil, toOneDestination: nil)
        }
        guard !memberKeys.isEmpty else { throw .collectionOperatorNeedsKey(name: op.rawValue, relationship: relationship.name) }
        let path = try memberPath(of: relationship, owner: owner, needsMembers: true)
        let ((column, attribute), extra, _) = try collectingJoins { () throws(FetchSQLError) -> (String, AttributeDescription) in
            guard let members = path.members, case .attribute(let column, let attribute) = try resolve(memberKeys, from: members) else {
                throw .collectionOperatorNeedsAttribute(name: op.rawValue, destination: relationship.destinationEntity)
            }
            return (column, attribute)
        }
        let function = ["sum": "total", "avg": "avg", "min": "min", "max": "max"][op.rawValue] ?? op.rawValue
        let sql = subquery(path, select: "\(function)(\(column))", condition: nil, extraJoins: extra)
        return .sql(sql, attribute: op == .avg || op == .sum ? nil : attribute, toOneDestination: nil)
    }

    private func subqueryCount(
        collection: Expression, variable: String, predicate: Predicate, scope: Scope,
        outer: Bool
    ) throws(FetchSQLError) -> Operand {
        let components: [KeyPathComponent]
        let base: Scope
        switch collection {
        case .keyPath(let path):
            (components, base) = (path, scope)
        case .path(.variable(let name), let path):
            guard let variableScope = variables[name] else { throw .unknownVariable(name: name) }
            (components, base) = (path, variableScope)
        default:
            throw .subqueryCollectionNotToMany
        }
        guard case .toMany(let owner, let relationship, let rest) = try resolve(components, from: base, outer: outer), rest.isEmpty else {
            throw .subqueryCollectionNotToMany
        }
        let path = try memberPath(of: relationship, owner: owner, needsMembers: true)
        guard let members = path.members else { throw .subqueryWithoutMemberTable(relationship: relationship.name) }
        let saved = variables[variable]
        variables[variable] = members
        defer { variables[variable] = saved }
        let (condition, extra, joinsMembers) = try collectingJoins { () throws(FetchSQLError) -> String in
            try self.predicate(predicate, scope: members)
        }
        // Members joined to their own to-many relationships repeat once per joined row: count each once.
        let counted = (joinsMembers ? "DISTINCT " : "") + "\(members.alias).Z_PK"
        let sql = subquery(path, select: "COUNT(\(counted))", condition: "(" + condition + ")", extraJoins: extra)
        return .sql(sql, attribute: nil, toOneDestination: nil)
    }

    // MARK: Terms and values

    private func term(_ left: Operand, _ op: ComparisonOperator, _ right: Operand, options: ComparisonOptions) throws(FetchSQLError) -> String {
        guard case .sql(let lhs, let attribute, let destination) = left else {
            throw .comparisonWithoutKeyPath
        }
        let flags = StringMatching.flags(options)
        switch (op, right) {
        case (.equal, .value(.null)): return lhs + " IS NULL"
        case (.notEqual, .value(.null)): return lhs + " IS NOT NULL"
        case (.equal, .value(let value)) where flags != 0, (.notEqual, .value(let value)) where flags != 0:
            let search = try " NSCoreDataStringSearch(" + lhs + ", " + bind(value, attribute: attribute, destination: destination) + ", \(flags), 0)"
            return op == .equal ? search : " NOT (" + search + ")"
        case (.equal, _), (.notEqual, _), (.less, _), (.lessOrEqual, _), (.greater, _), (.greaterOrEqual, _):
            let symbol = [ComparisonOperator.equal: "=", .notEqual: "<>", .less: "<", .lessOrEqual: "<=", .greater: ">", .greaterOrEqual: ">="][op]!
            return lhs + " \(symbol) " + (try rhs(right, attribute: attribute, destination: destination))
        case (.between, .values(let bounds)) where bounds.count == 2:
            return try lhs + " BETWEEN " + bind(bounds[0], attribute: attribute, destination: destination)
                + " AND " + bind(bounds[1], attribute: attribute, destination: destination)
        case (.between, _):
            throw .betweenNeedsTwoBounds
        case (.in, .values(let values)):
            var placeholders: [String] = []
            for value in values { placeholders.append(try bind(value, attribute: attribute, destination: destination)) }
            return lhs + " IN (" + placeholders.joined(separator: ", ") + ")"
        case (.in, .value(let value)):
            return try lhs + " = " + bind(value, attribute: attribute, destination: destination)
        case (.in, _):
            throw .inNeedsList
        case (.beginsWith, .value(let value)), (.endsWith, .value(let value)), (.contains, .value(let value)):
            let operation: CoreDataSQLFunctions.SearchOperation = op == .beginsWith ? .beginsWith : op == .endsWith ? .endsWith : .contains
            return try " NSCoreDataStringSearch(" + lhs + ", " + bind(value, attribute: attribute, destination: nil)
                + ", \(flags), \(operation.rawValue))"
        case (.like, .value(let value)):
            return try " NSCoreDataLike(" + lhs + ", " + bind(value, attribute: nil, destination: nil) + ", \(flags))"
        case (.matches, .value(let value)):
            return try " NSCoreDataMatches(" + lhs + ", " + bind(value, attribute: nil, destination: nil) + ", \(flags))"
        case (.beginsWith, _), (.endsWith, _), (.contains, _), (.like, _), (.matches, _):
            throw .needsStringValue(operator: op.rawValue)
        }
    }

    private func rhs(_ right: Operand, attribute: AttributeDescription?, destination: String?) throws(FetchSQLError) -> String {
        switch right {
        case .value(let value): return try bind(value, attribute: attribute, destination: destination)
        case .sql(let sql, _, _): return sql
        case .values: throw .listOutsideInOrBetween
        }
    }

    /// Binds `value` (converted for the attribute or object it is compared with) and returns `?`.
    /// Text compared with a date attribute must name a date, and text compared with an object
    /// (a relationship, a member, `SELF`) must be an object ID of that entity: bound as text
    /// either would compare with the column's numbers and silently match nothing (or everything).
    /// An object ID is bound as its `Z_PK`, as Core Data binds an object (store-format.md §8):
    /// the key alone names one row of the entity's table, sub-entities included.
    func bind(_ value: Value, attribute: AttributeDescription? = nil, destination: String? = nil) throws(FetchSQLError) -> String {
        if let attribute, attribute.type == .date, case .string(let text) = value, CoreDataDate(iso8601: text) == nil {
            throw .notADate(text: text, attribute: attribute.name)
        }
        if let destination, case .string(let text) = value {
            guard let object = ObjectURI(text) else {
                throw .notAnObjectID(text: text, destination: destination)
            }
            guard model.lineage(of: object.entity).contains(where: { $0.name == destination }) else {
                throw .objectOfOtherEntity(uri: text, entity: object.entity, destination: destination)
            }
            return bind(object.primaryKey.databaseValue)
        }
        return bind(Self.databaseValue(value, type: attribute?.type))
    }

    func bind(_ value: DatabaseValue) -> String {
        arguments.append(value)
        return "?"
    }

    static func databaseValue(_ value: Value, type: AttributeType?) -> DatabaseValue {
        switch value {
        case .null: return .null
        case .bool(let flag): return (flag ? 1 : 0).databaseValue
        // A number compared with a string attribute is its text, as a `%@` argument "15" means.
        case .integer(let integer): return type == .string ? String(integer).databaseValue : integer.databaseValue
        case .double(let double): return type == .string ? String(double).databaseValue : double.databaseValue
        case .date(let date): return date.timeIntervalSinceReferenceDate.databaseValue
        case .string(let text):
            if type == .date, let date = CoreDataDate(iso8601: text) { return date.secondsSince2001.databaseValue }
            if type == .uuid, let uuid = UUID(uuidString: text) {
                return withUnsafeBytes(of: uuid.uuid) { Data($0) }.databaseValue
            }
            return text.databaseValue
        }
    }

    // MARK: Sorting and selected values

    /// ` ORDER BY t0.ZNAME COLLATE NSCollateNoCase DESC, …` (empty without sort descriptors).
    /// A selector Core Data's SQLite store does not sort with is refused, as the store refuses it.
    func orderBy(_ descriptors: [CDModel.SortDescriptor], scope: Scope) throws(FetchSQLError) -> String {
        guard !descriptors.isEmpty else { return "" }
        var terms: [String] = []
        for descriptor in descriptors {
            guard let comparison = descriptor.comparison else {
                throw .unsupportedSortSelector(key: descriptor.key, selector: descriptor.selector ?? "")
            }
            let (column, _) = try valueColumn(descriptor.key, scope: scope, purpose: "sorting", outer: true)
            terms.append(column + (comparison.collation.map { " COLLATE " + $0 } ?? "") + (descriptor.ascending ? "" : " DESC"))
        }
        return " ORDER BY " + terms.joined(separator: ", ")
    }

    /// The member key counted by `count:` over a to-many key path, its members joined with a
    /// `LEFT OUTER JOIN` so objects without members still count as rows (logged); nil when
    /// `keyPath` does not end at a to-many relationship.
    func toManyCountColumn(_ keyPath: String, scope: Scope) throws(FetchSQLError) -> String? {
        let components = keyPath.split(separator: ".").map { KeyPathComponent.key(String($0)) }
        guard !components.isEmpty, case .toMany(let owner, let relationship, let rest) = try resolve(components, from: scope),
            rest.isEmpty
        else { return nil }
        let path = try memberPath(of: relationship, owner: owner, needsMembers: false)
        for table in path.tables {
            joins.append(Join(table: table.name, alias: table.alias, on: table.on ?? path.correlation, isOuter: true))
        }
        return path.countColumn
    }

    /// The column of an attribute or to-one key path (`author.name`), for sorting, distinct
    /// values and aggregates.
    func valueColumn(_ keyPath: String, scope: Scope, purpose: String, outer: Bool = false) throws(FetchSQLError) -> (String, AttributeDescription?) {
        let components = keyPath.split(separator: ".", omittingEmptySubsequences: false).map { KeyPathComponent.key(String($0)) }
        guard !keyPath.isEmpty, !components.contains(.key("")) else { throw .needsKeyPath(purpose: purpose, keyPath: keyPath) }
        switch try resolve(components, from: scope, outer: outer) {
        case .attribute(let column, let attribute): return (column, attribute)
        case .toOne(let column, _): return (column, nil)
        case .toMany(let owner, let relationship, _):
            throw .toManyValueKey(purpose: purpose, entity: owner.entity, relationship: relationship.name)
        }
    }
}

/// An object ID, `x-coredata://<store UUID>/<Entity>/p<Z_PK>` (store-format.md §8).
struct ObjectURI {
    let entity: String
    let primaryKey: Int64

    init?(_ text: String) {
        guard text.hasPrefix("x-coredata://") else { return nil }
        let parts = text.dropFirst("x-coredata://".count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[1].isEmpty, parts[2].hasPrefix("p"), let key = Int64(parts[2].dropFirst()), key > 0 else {
            return nil
        }
        entity = String(parts[1])
        primaryKey = key
    }
}
