import CDBase
import CDMapping
import CDModel
import CDPredicate
import CDStore
import Foundation
import GRDB

/// Predicates: comparisons, compounds, quantifiers, SUBQUERY, IN and BETWEEN as SQL.
extension SQLBuilder {
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
    enum Operand {
        /// A column or SQL expression, with the attribute (or to-one destination) typing it.
        case sql(String, attribute: AttributeDescription?, toOneDestination: String?)
        case value(Value)
        case values([Value])
    }

    /// The scope and components of a key path expression (`tags.name`, `$m.tags.name`), or nil.
    func keyPathStart(_ expression: Expression, scope: Scope) -> (Scope, [KeyPathComponent])? {
        switch expression {
        case .keyPath(let components): return (scope, components)
        case .path(.variable(let name), let components): return variables[name].map { ($0, components) }
        default: return nil
        }
    }

    func comparison(_ comparison: Comparison, scope: Scope, positive: Bool) throws(FetchSQLError) -> String {
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

    static func isCollectionOperator(_ component: KeyPathComponent) -> Bool {
        if case .collectionOperator = component { return true }
        return false
    }

    static func isConstant(_ expression: Expression) -> Bool {
        switch expression {
        case .constant, .aggregate: return true
        default: return false
        }
    }

    static func flipped(_ op: ComparisonOperator) -> ComparisonOperator? {
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
    func quantified(
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
    func memberOperand(
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

    func operand(_ expression: Expression, scope: Scope, outer: Bool) throws(FetchSQLError) -> Operand {
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

    func keyPathOperand(_ components: [KeyPathComponent], scope: Scope, outer: Bool) throws(FetchSQLError) -> Operand {
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
    func collectionOperand(owner: Scope, relationship: RelationshipDescription, rest: [KeyPathComponent]) throws(FetchSQLError) -> Operand {
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

    func subqueryCount(
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
}
