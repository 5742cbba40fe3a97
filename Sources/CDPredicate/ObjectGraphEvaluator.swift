import Foundation

/// Evaluates a fetch predicate on objects in memory, following key paths through to-one and
/// to-many relationships: the independent answer the fetch engine's SQL is tested against.
///
/// It knows two semantics (``EvaluationMode``). `coreDataSQL` is the contract's model of Core
/// Data's SQL (`../notes/predicate-semantics.md`, S1–S9): every to-many comparison outside an
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
    private let parsedURIs = URICache()

    package init(schema: Schema, fetchedEntity: String) {
        self.schema = schema
        self.fetchedEntity = fetchedEntity
    }

    /// Whether `object` is in the result of fetching with `predicate`.
    package func matches<Object: GraphObject>(
        _ predicate: Predicate, _ object: Object,
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

    private func walk<Object>(_ components: [KeyPathComponent], from start: Node<Object>) throws(NotEvaluable) -> Walk<Object> {
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
    private func start<Object>(of expression: Expression, _ scope: Scope<Object>)
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
    private func side<Object>(_ expression: Expression, _ scope: Scope<Object>, mode: EvaluationMode)
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
    private func aggregate<Object>(
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
    private func collectionMembers<Object>(_ components: [KeyPathComponent], from start: Node<Object>)
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
    private static func aggregate(
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
    private func subqueryCount<Object>(
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

    // MARK: coreDataSQL

    private func truths<Object>(_ predicate: Predicate, _ scope: Scope<Object>, inner: Bool) throws(NotEvaluable) -> Truths {
        switch predicate {
        case .constant(let value):
            return value ? .true : .false
        case .not(let operand):
            var result: Truths = []
            for truth in try truths(operand, scope, inner: false).members { result.insert(Truths(truth.not)) }
            return result
        case .and(let operands):
            var result: Truths = .true
            for operand in operands {
                result = result.combined(with: try truths(operand, scope, inner: inner)) { $0.and($1) }
            }
            return result
        case .or(let operands):
            var result: Truths = .false
            for operand in operands {
                result = result.combined(with: try truths(operand, scope, inner: false)) { $0.or($1) }
            }
            return result
        case .comparison(let comparison):
            return try comparisonTruths(comparison, scope, inner: inner)
        case .opaque(let text):
            throw NotEvaluable("the predicate \(text)")
        }
    }

    private func comparisonTruths<Object>(_ comparison: Comparison, _ scope: Scope<Object>, inner: Bool)
        throws(NotEvaluable) -> Truths
    {
        let (quantifier, left, op, right) = try normalized(comparison, scope, mode: .coreDataSQL)
        switch (quantifier, left) {
        case (.direct, .scalar(let value)):
            return Truths(try compare(value, op, right, options: comparison.options))
        case (.direct, .members(let members, let deadEnd, _)), (.any, .members(let members, let deadEnd, _)):
            // S3: a join dimension; OUTER unless only ANDs lead here.
            var rows = members
            if !inner && deadEnd { rows.append(.value(.null)) }
            var result: Truths = []
            for member in rows { result.insert(Truths(try compare(member, op, right, options: comparison.options))) }
            return result
        case (.none, .members(let members, let deadEnd, _)):
            // S3: always OUTER; each row tests NOT (comparison).
            var rows = members
            if deadEnd { rows.append(.value(.null)) }
            var result: Truths = []
            for member in rows { result.insert(Truths(try compare(member, op, right, options: comparison.options).not)) }
            return result
        case (.all, .members(let members, _, _)):
            // S4: TRUE unless some member makes the comparison FALSE.
            for member in members {
                if try compare(member, op, right, options: comparison.options) == .false { return .false }
            }
            return .true
        default:
            throw NotEvaluable("\(quantifier.rawValue) before a key path that is not to-many")
        }
    }

    // MARK: nsPredicate

    private func holds<Object>(_ predicate: Predicate, _ scope: Scope<Object>) throws(NotEvaluable) -> Bool {
        switch predicate {
        case .constant(let value): return value
        case .not(let operand): return try !holds(operand, scope)
        case .and(let operands):
            var result = true
            for operand in operands {
                if try !holds(operand, scope) { result = false }
            }
            return result
        case .or(let operands):
            var result = false
            for operand in operands {
                if try holds(operand, scope) { result = true }
            }
            return result
        case .comparison(let comparison):
            let (quantifier, left, op, right) = try normalized(comparison, scope, mode: .nsPredicate)
            func test(_ value: Scalar) throws(NotEvaluable) -> Bool {
                Self.twoValued(try compare(value, op, right, options: comparison.options), op)
            }
            switch (quantifier, left) {
            case (.direct, .scalar(let value)):
                return try test(value)
            case (.direct, .members(let members, _, _)), (.any, .members(let members, _, _)), (.none, .members(let members, _, _)):
                var found = false
                for member in members {
                    if try test(member) { found = true }
                }
                return quantifier == .none ? !found : found
            case (.all, .members(let members, _, _)):
                var all = true
                for member in members {
                    if try !test(member) { all = false }
                }
                return all
            default:
                throw NotEvaluable("\(quantifier.rawValue) before a key path that is not to-many")
            }
        case .opaque(let text):
            throw NotEvaluable("the predicate \(text)")
        }
    }

    /// NSPredicate's answer where SQL says UNKNOWN: a nil operand makes `!=` true and every
    /// other comparison false.
    private static func twoValued(_ truth: Truth, _ op: ComparisonOperator) -> Bool {
        switch truth {
        case .true: return true
        case .false: return false
        case .unknown: return op == .notEqual
        }
    }

    // MARK: Comparisons

    /// The comparison with its key path on the left: a constant on the left is moved right
    /// (flipping `<` and friends), and `value IN rel` becomes `ANY rel == value`.
    private func normalized<Object>(_ comparison: Comparison, _ scope: Scope<Object>, mode: EvaluationMode)
        throws(NotEvaluable) -> (ComparisonQuantifier, Side, ComparisonOperator, Side)
    {
        var left = try side(comparison.left, scope, mode: mode)
        var right = try side(comparison.right, scope, mode: mode)
        var op = comparison.op
        var quantifier = comparison.quantifier
        if case .members = right {
            guard case .scalar = left, quantifier == .direct else {
                throw NotEvaluable("a to-many key path on the right of \(op.rawValue)")
            }
            switch op {
            case .in: op = .equal
            case .equal, .notEqual: break
            case .less: op = .greater
            case .lessOrEqual: op = .greaterOrEqual
            case .greater: op = .less
            case .greaterOrEqual: op = .lessOrEqual
            default: throw NotEvaluable("\(op.rawValue) with a to-many key path on the right")
            }
            swap(&left, &right)
            quantifier = .any
        } else if case .scalar(let constant) = left, case .scalar = right,
            case .constant = comparison.left, !Self.isConstant(comparison.right)
        {
            switch op {
            case .equal, .notEqual: break
            case .less: op = .greater
            case .lessOrEqual: op = .greaterOrEqual
            case .greater: op = .less
            case .greaterOrEqual: op = .lessOrEqual
            default: throw NotEvaluable("a constant on the left of \(op.rawValue)")
            }
            left = right
            right = .scalar(constant)
        }
        if case .members(_, _, bareRelationship: true) = left, quantifier == .direct {
            throw NotEvaluable("a to-many relationship compared without ANY, ALL or NONE")
        }
        return (quantifier, left, op, right)
    }

    private static func isConstant(_ expression: Expression) -> Bool {
        if case .constant = expression { return true }
        return false
    }

    /// One comparison of a value with the right side, in three-valued logic (S1, S6–S8).
    private func compare(
        _ left: Scalar, _ op: ComparisonOperator, _ right: Side,
        options: ComparisonOptions
    ) throws(NotEvaluable) -> Truth {
        switch (op, right) {
        case (.in, .list(let items)):
            guard options.isEmpty else { throw NotEvaluable("IN with options") }
            // SQL's IN: a NULL in the list (or on the left) is UNKNOWN, not IS NULL.
            var result = Truth.false
            for item in items {
                let equal = item.isNull ? Truth.unknown : try compare(left, .equal, .scalar(item), options: [])
                result = result.or(equal)
            }
            return result
        case (.between, .list(let bounds)):
            guard bounds.count == 2, options.isEmpty else { throw NotEvaluable("BETWEEN without two bounds") }
            return try compare(left, .greaterOrEqual, .scalar(bounds[0]), options: [])
                .and(try compare(left, .lessOrEqual, .scalar(bounds[1]), options: []))
        case (_, .scalar(let value)):
            return try compare(left, op, value, options: options)
        default:
            throw NotEvaluable("\(op.rawValue) with this right side")
        }
    }

    private func compare(
        _ left: Scalar, _ op: ComparisonOperator, _ right: Scalar,
        options: ComparisonOptions
    ) throws(NotEvaluable) -> Truth {
        if case .value(.null) = right {
            // S1: `== nil` and `!= nil` are IS NULL and IS NOT NULL; anything else with NULL is UNKNOWN.
            switch op {
            case .equal: return left.isNull ? .true : .false
            case .notEqual: return left.isNull ? .false : .true
            default: return .unknown
            }
        }
        switch left {
        case .object(_, let primaryKey, let declared):
            return try compareObject(primaryKey: primaryKey, declared: declared, op, right, options: options)
        case .missingObject(let declared):
            return try compareObject(primaryKey: nil, declared: declared, op, right, options: options)
        case .value(.null):
            try Self.checkComparable(op, right, options: options)
            return .unknown
        case .value(let value):
            guard case .value(let constant) = right else { throw NotEvaluable("an attribute compared with an object") }
            return try Self.compareValues(value, op, constant, options: options)
        }
    }

    /// S6: an object (or a missing one) with an object ID's URI.
    private func compareObject(
        primaryKey: Int64?, declared: String, _ op: ComparisonOperator, _ right: Scalar,
        options: ComparisonOptions
    ) throws(NotEvaluable) -> Truth {
        guard options.isEmpty else { throw NotEvaluable("an object comparison with options") }
        let target: (entity: String, primaryKey: Int64)
        switch right {
        case .value(.string(let uri)):
            guard let parsed = parsedURIs.parse(uri) else { throw NotEvaluable("\"\(uri)\" is not an object ID URI") }
            target = parsed
        case .object(let entity, let key, _):
            target = (entity, key)
        default:
            throw NotEvaluable("an object compared with something other than an object ID")
        }
        guard op == .equal || op == .notEqual else { throw NotEvaluable("\(op.rawValue) between objects") }
        guard schema.isEntity(target.entity, kindOf: declared) else {
            // S6: an ID of another entity never matches; what != means then is not defined.
            guard op == .equal else { throw NotEvaluable("!= with an object ID of an entity the key path cannot hold") }
            return .false
        }
        guard let primaryKey else { return .unknown }
        return (primaryKey == target.primaryKey) == (op == .equal) ? .true : .false
    }

    /// Refuses a comparison that would not be evaluable with a non-nil left side either.
    private static func checkComparable(_ op: ComparisonOperator, _ right: Scalar, options: ComparisonOptions) throws(NotEvaluable) {
        guard case .value(let constant) = right else { throw NotEvaluable("an attribute compared with an object") }
        switch (op, constant) {
        case (.beginsWith, .string), (.endsWith, .string), (.contains, .string), (.like, .string), (.matches, .string):
            try checkOptions(options)
        case (.beginsWith, _), (.endsWith, _), (.contains, _), (.like, _), (.matches, _):
            throw NotEvaluable("\(op.rawValue) with a value that is not a string")
        case (.equal, .string), (.notEqual, .string):
            try checkOptions(options)
        default:
            guard options.isEmpty else { throw NotEvaluable("options on \(op.rawValue) with a value that is not a string") }
        }
    }

    private static func checkOptions(_ options: ComparisonOptions) throws(NotEvaluable) {
        guard options.subtracting([.caseInsensitive, .diacriticInsensitive]).isEmpty else {
            throw NotEvaluable("the [n] and [l] options")
        }
    }

    /// Two non-NULL values (S7, S8).
    private static func compareValues(
        _ value: GraphValue, _ op: ComparisonOperator, _ constant: GraphValue,
        options: ComparisonOptions
    ) throws(NotEvaluable) -> Truth {
        try checkComparable(op, .value(constant), options: options)
        func truth(_ flag: Bool) -> Truth { flag ? .true : .false }
        switch (value, constant) {
        case (.string(let text), .string(let pattern)):
            let flags = StringMatching.flags(options)
            switch op {
            case .equal, .notEqual:
                let equal =
                    options.isEmpty
                    ? Array(text.utf8) == Array(pattern.utf8)
                    : StringMatching.stringSearch(text, pattern, flags: flags, operation: .equal)
                return truth(equal == (op == .equal))
            case .beginsWith: return truth(StringMatching.stringSearch(text, pattern, flags: flags, operation: .beginsWith))
            case .endsWith: return truth(StringMatching.stringSearch(text, pattern, flags: flags, operation: .endsWith))
            case .contains: return truth(StringMatching.stringSearch(text, pattern, flags: flags, operation: .contains))
            case .like: return truth(StringMatching.like(text, pattern: pattern, flags: flags))
            case .matches:
                do {
                    return truth(try StringMatching.matches(text, pattern: pattern, flags: flags))
                } catch {
                    throw NotEvaluable("MATCHES with an invalid pattern")
                }
            case .less, .lessOrEqual, .greater, .greaterOrEqual:
                guard options.isEmpty else { throw NotEvaluable("an ordering of strings with options") }
                let order = compareBytes(text, pattern)
                return truth(ordered(order, op))
            case .in, .between:
                throw NotEvaluable("\(op.rawValue) without a list")
            }
        case (.uuid(let uuid), .string(let text)):
            guard let other = UUID(uuidString: text) else { throw NotEvaluable("\"\(text)\" compared with a UUID attribute") }
            switch op {
            case .equal: return truth(uuid == other)
            case .notEqual: return truth(uuid != other)
            default: throw NotEvaluable("\(op.rawValue) with a UUID")
            }
        case (.uuid(let uuid), .uuid(let other)):
            switch op {
            case .equal: return truth(uuid == other)
            case .notEqual: return truth(uuid != other)
            default: throw NotEvaluable("\(op.rawValue) with a UUID")
            }
        case (.opaque, _), (_, .opaque):
            throw NotEvaluable("a comparison of binary, transformable or URI values other than with nil")
        default:
            guard let order = try compareOrder(value, constant) else {
                throw NotEvaluable("a comparison of \(value) with \(constant)")
            }
            switch op {
            case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual:
                return truth(ordered(order, op))
            default:
                throw NotEvaluable("\(op.rawValue) with a number or a date")
            }
        }
    }

    private static func ordered(_ order: Int, _ op: ComparisonOperator) -> Bool {
        switch op {
        case .equal: return order == 0
        case .notEqual: return order != 0
        case .less: return order < 0
        case .lessOrEqual: return order <= 0
        case .greater: return order > 0
        default: return order >= 0
        }
    }

    /// UTF-8 byte order, SQLite's BINARY collation (S7).
    private static func compareBytes(_ a: String, _ b: String) -> Int {
        let x = Array(a.utf8), y = Array(b.utf8)
        if x == y { return 0 }
        return x.lexicographicallyPrecedes(y) ? -1 : 1
    }

    /// The order of two numbers, dates (seconds since 2001) or strings; nil when they do not compare.
    private static func compareOrder(_ a: GraphValue, _ b: GraphValue) throws(NotEvaluable) -> Int? {
        switch (a, b) {
        case (.string(let x), .string(let y)): return compareBytes(x, y)
        case (.integer(let x), .integer(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.integer(let x), .double(let y)), (.integer(let x), .date(let y)): return compareMixed(x, y)
        case (.double(let x), .integer(let y)), (.date(let x), .integer(let y)): return -compareMixed(y, x)
        case (.double(let x), .double(let y)), (.double(let x), .date(let y)),
            (.date(let x), .double(let y)), (.date(let x), .date(let y)):
            guard !x.isNaN, !y.isNaN else { throw NotEvaluable("NaN") }
            return x == y ? 0 : (x < y ? -1 : 1)
        default: return nil
        }
    }

    /// An integer against a double by value (S8), exact beyond 2^53.
    private static func compareMixed(_ integer: Int64, _ double: Double) -> Int {
        if double.isNaN { return 0 }
        if double >= 9.223372036854775807e18 { return -1 }
        if double < -9.223372036854775808e18 { return 1 }
        let whole = double.rounded(.down)
        let truncated = Int64(whole)
        if integer != truncated { return integer < truncated ? -1 : 1 }
        return whole == double ? 0 : -1
    }

    /// A literal as a value: booleans are 0 and 1, dates seconds since 2001 (S8).
    static func graphValue(_ value: Value) -> GraphValue {
        switch value {
        case .null: return .null
        case .bool(let flag): return .integer(flag ? 1 : 0)
        case .integer(let integer): return .integer(integer)
        case .double(let double): return .double(double)
        case .string(let string): return .string(string)
        case .date(let date): return .date(date.timeIntervalSinceReferenceDate)
        }
    }
}

/// Truth values of three-valued logic.
enum Truth: Sendable {
    case `true`, `false`, unknown

    var not: Truth {
        switch self {
        case .true: return .false
        case .false: return .true
        case .unknown: return .unknown
        }
    }

    func and(_ other: Truth) -> Truth {
        if self == .false || other == .false { return .false }
        if self == .unknown || other == .unknown { return .unknown }
        return .true
    }

    func or(_ other: Truth) -> Truth {
        if self == .true || other == .true { return .true }
        if self == .unknown || other == .unknown { return .unknown }
        return .false
    }
}

/// The truth values a sub-predicate can take over the rows of its join dimensions.
struct Truths: OptionSet {
    let rawValue: UInt8
    static let `true` = Truths(rawValue: 1)
    static let `false` = Truths(rawValue: 2)
    static let unknown = Truths(rawValue: 4)

    init(rawValue: UInt8) { self.rawValue = rawValue }
    init(_ truth: Truth) {
        switch truth {
        case .true: self = .true
        case .false: self = .false
        case .unknown: self = .unknown
        }
    }

    /// The members of each of the eight sets, indexed by raw value.
    private static let memberLists: [[Truth]] = (0..<8).map { raw in
        [(1, Truth.true), (2, .false), (4, .unknown)].filter { raw & $0.0 != 0 }.map { $0.1 }
    }

    var members: [Truth] { Truths.memberLists[Int(rawValue & 7)] }

    func combined(with other: Truths, _ operation: (Truth, Truth) -> Truth) -> Truths {
        var result: Truths = []
        for a in members { for b in other.members { result.insert(Truths(operation(a, b))) } }
        return result
    }
}

/// Parsed `x-coredata://` URIs by text, for one evaluator.
final class URICache {
    private var parsed: [String: (entity: String, primaryKey: Int64)?] = [:]

    func parse(_ text: String) -> (entity: String, primaryKey: Int64)? {
        if let known = parsed[text] { return known }
        let result = Self.objectURI(text)
        parsed[text] = .some(result)
        return result
    }

    /// `x-coredata://<store>/<Entity>/p<N>`: the entity and `Z_PK`.
    static func objectURI(_ text: String) -> (entity: String, primaryKey: Int64)? {
        guard text.hasPrefix("x-coredata://") else { return nil }
        let parts = text.dropFirst("x-coredata://".count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[1].isEmpty, parts[2].first == "p", let key = Int64(parts[2].dropFirst()) else { return nil }
        return (String(parts[1]), key)
    }
}
