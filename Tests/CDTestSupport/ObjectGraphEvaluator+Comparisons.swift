import CDPredicate
import Foundation

/// Comparisons of scalars: numbers, strings with their options, dates, UUIDs and object IDs.
extension ObjectGraphEvaluator {
    /// The comparison with its key path on the left: a constant on the left is moved right
    /// (flipping `<` and friends), and `value IN rel` becomes `ANY rel == value`.
    func normalized<Object>(_ comparison: Comparison, _ scope: Scope<Object>, mode: EvaluationMode)
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

    static func isConstant(_ expression: Expression) -> Bool {
        if case .constant = expression { return true }
        return false
    }

    /// One comparison of a value with the right side, in three-valued logic (S1, S6–S8).
    func compare(
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

    func compare(
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
    func compareObject(
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
    static func checkComparable(_ op: ComparisonOperator, _ right: Scalar, options: ComparisonOptions) throws(NotEvaluable) {
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

    static func checkOptions(_ options: ComparisonOptions) throws(NotEvaluable) {
        guard options.subtracting([.caseInsensitive, .diacriticInsensitive]).isEmpty else {
            throw NotEvaluable("the [n] and [l] options")
        }
    }

    /// Two non-NULL values (S7, S8).
    static func compareValues(
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

    static func ordered(_ order: Int, _ op: ComparisonOperator) -> Bool {
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
    static func compareBytes(_ a: String, _ b: String) -> Int {
        let x = Array(a.utf8), y = Array(b.utf8)
        if x == y { return 0 }
        return x.lexicographicallyPrecedes(y) ? -1 : 1
    }

    /// The order of two numbers, dates (seconds since 2001) or strings; nil when they do not compare.
    static func compareOrder(_ a: GraphValue, _ b: GraphValue) throws(NotEvaluable) -> Int? {
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
    static func compareMixed(_ integer: Int64, _ double: Double) -> Int {
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
