import CDPredicate
import Foundation

/// Evaluates a fetch predicate on objects in memory, following key paths through to-one and
/// to-many relationships: the independent answer the fetch engine's SQL is tested against.
///
/// It knows two semantics (``EvaluationMode``). `coreDataSQL` is the contract's model of Core
/// Data's SQL (`docs/format/predicate-semantics.md`, S1–S9): every to-many comparison outside an
/// aggregate is one join dimension, INNER when only ANDs lead to it from the root and its
/// quantifier is ANY (or implicit), OUTER otherwise (an OUTER dimension with no members has one
/// NULL member); the object is returned when some row of the cross product makes the
/// predicate TRUE under Kleene's three-valued logic. Each dimension occurs once in the
/// predicate's text, so the rows need not be listed: the evaluator computes, bottom up, the set
/// of truth values each sub-predicate can take over the rows of its own dimensions, and the
/// object is returned when TRUE is in the root's set. An INNER dimension with no member gives
/// the empty set, which ANDs carry to the root.
///
/// It is written from the contract, not from the SQL generator. Shapes it does not model throw
/// ``NotEvaluable`` instead of answering.
package struct ObjectGraphEvaluator<Schema: GraphSchema> {
    package let schema: Schema
    /// The entity fetched: `SELF`'s entity for object arguments (S6).
    package let fetchedEntity: String
    /// Object ID URIs already parsed: a predicate compares the same constants on every object.
    let parsedURIs = URICache()

    package init(schema: Schema, fetchedEntity: String) {
        self.schema = schema
        self.fetchedEntity = fetchedEntity
    }

    /// Whether `object` is in the result of fetching with `predicate`.
    package func matches<Object: GraphObject>(
        _ predicate: CDPredicate.Predicate, _ object: Object,
        mode: EvaluationMode
    ) throws(NotEvaluable) -> Bool {
        let scope = Scope<Object>(root: object, rootEntity: fetchedEntity, variables: [:], insideSubquery: false)
        switch mode {
        case .nsPredicate: return try holds(predicate, scope)
        case .coreDataSQL: return try truths(predicate, scope, inner: true).contains(.true)
        }
    }

    // MARK: Values

    /// Where key paths start: the evaluated object, and the variables of enclosing SUBQUERYs.
    struct Scope<Object: GraphObject> {
        let root: Object
        let rootEntity: String
        var variables: [String: (Object, entity: String)]
        var insideSubquery: Bool
    }

    /// One value a side of a comparison takes: an attribute value, an object (with the entity
    /// the relationship or fetch declares, for S6), or a missing object.
    enum Scalar {
        case value(GraphValue)
        case object(entity: String, primaryKey: Int64, declared: String)
        case missingObject(declared: String)

        var isNull: Bool {
            switch self {
            case .value(.null), .missingObject: return true
            default: return false
            }
        }
    }

    /// A node reached while walking a key path.
    enum Node<Object: GraphObject> {
        case object(Object, declared: String)
        case missingObject(declared: String)
        case value(GraphValue)

        var scalar: Scalar {
            switch self {
            case .object(let object, let declared):
                return .object(entity: object.entityName, primaryKey: object.primaryKey, declared: declared)
            case .missingObject(let declared): return .missingObject(declared: declared)
            case .value(let value): return .value(value)
            }
        }
    }

    /// What a side of a comparison evaluates to.
    enum Side {
        /// One value per object.
        case scalar(Scalar)
        /// The values of a to-many key path, one per member reached; `deadEnd` when some path
        /// ended at an empty to-many or a nil object before it (an OUTER join's NULL row);
        /// `bareRelationship` when the key path ends at the to-many relationship itself.
        case members([Scalar], deadEnd: Bool, bareRelationship: Bool)
        /// A constant list: `{a, b}`.
        case list([Scalar])
    }

    // MARK: Key paths

    /// The nodes a key path reaches from `start`.
    struct Walk<Object: GraphObject> {
        var nodes: [Node<Object>]
        var toManySteps = 0
        var deadEnd = false
        /// A nil to-one before the first to-many step (S2: the whole path is NULL).
        var nilBeforeToMany = false
        var lastStepToMany = false
    }

    func walk<Object>(_ components: [KeyPathComponent], from start: Node<Object>) throws(NotEvaluable) -> Walk<Object> {
        // Most key paths are attributes and to-ones: follow them without building node lists.
        var node = start
        var position = 0
        scalarSteps: while position < components.count {
            guard case .key(let key) = components[position], case .object(let object, _) = node,
                let property = object.property(named: key)
            else { break }
            switch property {
            case .attribute(let value): node = .value(value)
            case .toOne(let target, let destination):
                node = target.map { .object($0, declared: destination) } ?? .missingObject(declared: destination)
            case .toMany: break scalarSteps
            }
            position += 1
        }
        var walk = Walk<Object>(nodes: [node])
        for component in components[position...] {
            guard case .key(let key) = component else {
                throw NotEvaluable("a collection operator where it cannot be evaluated")
            }
            var next: [Node<Object>] = []
            var crossedToMany = false
            for node in walk.nodes {
                switch node {
                case .value:
                    throw NotEvaluable("key \"\(key)\" after an attribute")
                case .object(let object, _):
                    guard let property = object.property(named: key) else {
                        throw NotEvaluable("\(object.entityName) has no property \"\(key)\"")
                    }
                    switch property {
                    case .attribute(let value): next.append(.value(value))
                    case .toOne(let target, let destination):
                        next.append(target.map { .object($0, declared: destination) } ?? .missingObject(declared: destination))
                    case .toMany(let members, let destination):
                        crossedToMany = true
                        if members.isEmpty { walk.deadEnd = true }
                        next += members.map { .object($0, declared: destination) }
                    }
                case .missingObject(let declared):
                    guard let kind = schema.propertyKind(key, ofEntity: declared) else {
                        throw NotEvaluable("\(declared) has no property \"\(key)\"")
                    }
                    switch kind {
                    case .attribute: next.append(.value(.null))
                    case .toOne(let destination): next.append(.missingObject(declared: destination))
                    case .toMany:
                        crossedToMany = true
                        walk.deadEnd = true
                        if walk.toManySteps == 0 { walk.nilBeforeToMany = true }
                    }
                }
            }
            if crossedToMany { walk.toManySteps += 1 }
            walk.lastStepToMany = crossedToMany
            walk.nodes = next
        }
        return walk
    }

    /// The node an expression's key path starts from, and the key path.
    func start<Object>(of expression: Expression, _ scope: Scope<Object>)
        throws(NotEvaluable) -> (Node<Object>, [KeyPathComponent])?
    {
        switch expression {
        case .evaluatedObject, .keyPath:
            guard !scope.insideSubquery else {
                throw NotEvaluable("a key path from SELF inside SUBQUERY (write it from the SUBQUERY's variable)")
            }
            let components: [KeyPathComponent]
            if case .keyPath(let path) = expression { components = path } else { components = [] }
            return (.object(scope.root, declared: scope.rootEntity), components)
        case .variable(let name):
            guard let bound = scope.variables[name] else { throw NotEvaluable("unknown variable $\(name)") }
            return (.object(bound.0, declared: bound.entity), [])
        case .path(.variable(let name), let components):
            guard let bound = scope.variables[name] else { throw NotEvaluable("unknown variable $\(name)") }
            return (.object(bound.0, declared: bound.entity), components)
        default:
            return nil
        }
    }

    /// Evaluates one side. `dimension` is whether a to-many key path here is a join dimension
    /// (it is not inside ALL's subquery, where members are listed as they are).
    func side<Object>(_ expression: Expression, _ scope: Scope<Object>, mode: EvaluationMode)
        throws(NotEvaluable) -> Side
    {
        switch expression {
        case .constant(let value):
            return .scalar(.value(Self.graphValue(value)))
        case .aggregate(let items):
            var values: [Scalar] = []
            for item in items {
                guard case .constant(let value) = item else { throw NotEvaluable("a list holding a non-constant") }
                values.append(.value(Self.graphValue(value)))
            }
            return .list(values)
        case .path(.subquery(let collection, let variable, let predicate), let components):
            guard components == [.collectionOperator(.count)] else {
                throw NotEvaluable("SUBQUERY(…) followed by anything but .@count")
            }
            return .scalar(try subqueryCount(collection, variable, predicate, scope, mode: mode))
        default:
            guard let resolved = try start(of: expression, scope) else {
                throw NotEvaluable("the expression \(expression)")
            }
            let (start, components) = resolved
            if let position = components.firstIndex(where: { if case .collectionOperator = $0 { return true } else { return false } }) {
                return .scalar(try aggregate(components, at: position, from: start, mode: mode))
            }
            let walk = try walk(components, from: start)
            if walk.toManySteps == 0 {
                guard walk.nodes.count == 1 else { throw NotEvaluable("a key path without a single value") }
                return .scalar(walk.nodes[0].scalar)
            }
            return .members(walk.nodes.map(\.scalar), deadEnd: walk.deadEnd, bareRelationship: walk.lastStepToMany)
        }
    }

    /// `rel.@count`, `rel.@sum.x`, … (S5): one value per object, from all of the members.
    func aggregate<Object>(
        _ components: [KeyPathComponent], at position: Int, from start: Node<Object>,
        mode: EvaluationMode
    ) throws(NotEvaluable) -> Scalar {
        guard case .collectionOperator(let op) = components[position] else { throw NotEvaluable("no collection operator") }
        guard let members = try collectionMembers(Array(components[..<position]), from: start) else { return .value(.null) }
        let rest = Array(components[(position + 1)...])
        if op == .count {
            guard rest.isEmpty else { throw NotEvaluable("@count followed by a key") }
            return .value(.integer(Int64(members.count)))
        }
        guard !rest.isEmpty else { throw NotEvaluable("@\(op.rawValue) without a key after it") }
        var values: [GraphValue] = []
        var nilCount = 0
        for member in members {
            let reached = try walk(rest, from: .object(member.0, declared: member.declared))
            guard reached.toManySteps == 0, reached.nodes.count == 1, case .value(let value) = reached.nodes[0] else {
                throw NotEvaluable("@\(op.rawValue) over something other than an attribute")
            }
            if value == .null { nilCount += 1 } else { values.append(value) }
        }
        return .value(try Self.aggregate(op, values, nilCount: nilCount, mode: mode))
    }

    /// The members of a key path whose last step, and only that one, is a to-many relationship;
    /// nil when a nil to-one before it makes the collection NULL (S2).
    func collectionMembers<Object>(_ components: [KeyPathComponent], from start: Node<Object>)
        throws(NotEvaluable) -> [(Object, declared: String)]?
    {
        guard case .key(let last)? = components.last else {
            throw NotEvaluable("a collection that is not a to-many relationship")
        }
        let prefix = try walk(Array(components.dropLast()), from: start)
        guard prefix.toManySteps == 0, prefix.nodes.count == 1 else {
            throw NotEvaluable("a collection behind another to-many relationship")
        }
        switch prefix.nodes[0] {
        case .object(let object, _):
            guard case .toMany(let members, let destination)? = object.property(named: last) else {
                throw NotEvaluable("\"\(last)\" is not a to-many relationship of \(object.entityName)")
            }
            return members.map { ($0, declared: destination) }
        case .missingObject(let declared):
            guard case .toMany? = schema.propertyKind(last, ofEntity: declared) else {
                throw NotEvaluable("\"\(last)\" is not a to-many relationship of \(declared)")
            }
            return nil
        case .value:
            throw NotEvaluable("a collection after an attribute")
        }
    }

    /// SQLite's `total`, `avg`, `min`, `max` over the non-NULL values (S5), or Foundation's
    /// collection operators: `@sum` and `@avg` count nil as 0, `@avg` of nothing is 0, `@min` and
    /// `@max` skip nils and are nil for nothing.
    static func aggregate(
        _ op: CollectionOperator, _ values: [GraphValue], nilCount: Int,
        mode: EvaluationMode
    ) throws(NotEvaluable) -> GraphValue {
        func number(_ value: GraphValue) throws(NotEvaluable) -> Double {
            switch value {
            case .integer(let i): return Double(i)
            case .double(let d), .date(let d): return d
            default: throw NotEvaluable("@\(op.rawValue) over a value that is not a number or a date")
            }
        }
        switch op {
        case .count:
            return .integer(Int64(values.count + nilCount))
        case .sum:
            var total = 0.0
            for value in values { total += try number(value) }
            return .double(total)
        case .avg:
            var total = 0.0
            for value in values { total += try number(value) }
            switch mode {
            case .coreDataSQL: return values.isEmpty ? .null : .double(total / Double(values.count))
            case .nsPredicate:
                let count = values.count + nilCount
                return count == 0 ? .double(0) : .double(total / Double(count))
            }
        case .min, .max:
            var best: GraphValue?
            for value in values {
                guard let current = best else { best = value; continue }
                guard let order = try compareOrder(value, current) else {
                    throw NotEvaluable("@\(op.rawValue) over values that do not compare")
                }
                if (op == .min && order < 0) || (op == .max && order > 0) { best = value }
            }
            return best ?? .null
        }
    }

    /// `SUBQUERY(collection, $v, predicate).@count` (S5): the distinct members for which the
    /// predicate, rooted at the subquery, holds.
    func subqueryCount<Object>(
        _ collection: Expression, _ variable: String, _ predicate: Predicate,
        _ scope: Scope<Object>, mode: EvaluationMode
    ) throws(NotEvaluable) -> Scalar {
        guard let resolved = try start(of: collection, scope),
            !resolved.1.contains(where: { if case .collectionOperator = $0 { return true } else { return false } })
        else {
            throw NotEvaluable("a SUBQUERY collection that is not a key path")
        }
        let (start, components) = resolved
        guard let members = try collectionMembers(components, from: start) else { return .value(.null) }
        var seen = Set<String>()
        var count: Int64 = 0
        for (member, declared) in members {
            guard seen.insert(member.entityName + "/" + String(member.primaryKey)).inserted else { continue }
            var inner = scope
            inner.variables[variable] = (member, declared)
            inner.insideSubquery = true
            let holds: Bool
            switch mode {
            case .nsPredicate: holds = try self.holds(predicate, inner)
            case .coreDataSQL: holds = try truths(predicate, inner, inner: true).contains(.true)
            }
            if holds { count += 1 }
        }
        return .value(.integer(count))
    }
}
