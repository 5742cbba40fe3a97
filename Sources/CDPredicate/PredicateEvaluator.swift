/// Evaluates a predicate on one value, the way NSPredicate evaluates it on the object it is
/// given: `SELF` is the value, `length` is a string value's length in UTF-16 units (`NSString`'s
/// `length`), and the other sides are constants. Validation rules are such predicates: Core
/// Data evaluates them on the attribute's value.
package enum PredicateEvaluator {
    /// A value as the evaluator compares it: numbers (integers, booleans and dates included) as
    /// doubles, text, nil, and the list of an aggregate.
    package enum Operand: Sendable, Equatable {
        case null, number(Double), text(String), list([Operand])
    }

    /// Whether `predicate` uses only what the evaluator knows, so `evaluate` answers for it.
    package static func canEvaluate(_ predicate: Predicate) -> Bool {
        evaluate(predicate, on: .text("x")) != nil || evaluate(predicate, on: .number(1)) != nil
    }

    /// True or false, or nil when the predicate uses something other than `SELF`, `length` and
    /// constants, or compares operands that do not go together. A nil `value` is one the
    /// evaluator cannot compare: only predicates that do not look at `SELF` have an answer.
    package static func evaluate(_ predicate: Predicate, on value: Operand?) -> Bool? {
        switch predicate {
        case .constant(let result): return result
        case .not(let inner): return evaluate(inner, on: value).map { !$0 }
        case .and(let parts):
            let results = parts.map { evaluate($0, on: value) }
            return results.contains(nil) ? nil : results.allSatisfy { $0 == true }
        case .or(let parts):
            let results = parts.map { evaluate($0, on: value) }
            return results.contains(nil) ? nil : results.contains { $0 == true }
        case .comparison(let comparison):
            guard comparison.quantifier == .direct, let left = operand(comparison.left, value),
                let right = operand(comparison.right, value)
            else { return nil }
            return compare(left, comparison.op, right, options: comparison.options)
        case .opaque:
            return nil
        }
    }

    private static func operand(_ expression: Expression, _ value: Operand?) -> Operand? {
        switch expression {
        case .evaluatedObject: return value
        case .keyPath([.key("length")]), .path(.evaluatedObject, [.key("length")]):
            if case .text(let text) = value { return .number(Double(text.utf16.count)) }
            return nil
        case .constant(let constant):
            switch constant {
            case .null: return .null
            case .bool(let flag): return .number(flag ? 1 : 0)
            case .integer(let integer): return .number(Double(integer))
            case .double(let double): return .number(double)
            case .string(let text): return .text(text)
            case .date(let date): return .number(date.timeIntervalSinceReferenceDate)
            }
        case .aggregate(let items):
            let operands = items.map { operand($0, value) }
            return operands.contains { $0 == nil } ? nil : .list(operands.compactMap { $0 })
        default:
            return nil
        }
    }

    private static func compare(_ left: Operand, _ op: ComparisonOperator, _ right: Operand, options: ComparisonOptions) -> Bool? {
        let flags = StringMatching.flags(options)
        switch (left, op, right) {
        case (.null, .equal, .null): return true
        case (.null, .notEqual, .null): return false
        case (.null, _, _), (_, _, .null): return op == .notEqual
        case (.number(let a), _, .number(let b)):
            switch op {
            case .equal: return a == b
            case .notEqual: return a != b
            case .less: return a < b
            case .lessOrEqual: return a <= b
            case .greater: return a > b
            case .greaterOrEqual: return a >= b
            default: return nil
            }
        case (.text(let a), _, .text(let b)):
            switch op {
            case .equal: return StringMatching.stringSearch(a, b, flags: flags, operation: .equal)
            case .notEqual: return !StringMatching.stringSearch(a, b, flags: flags, operation: .equal)
            case .beginsWith: return StringMatching.stringSearch(a, b, flags: flags, operation: .beginsWith)
            case .endsWith: return StringMatching.stringSearch(a, b, flags: flags, operation: .endsWith)
            case .contains: return StringMatching.stringSearch(a, b, flags: flags, operation: .contains)
            case .like: return StringMatching.like(a, pattern: b, flags: flags)
            case .matches: return try? StringMatching.matches(a, pattern: b, flags: flags)
            case .less: return a < b
            case .lessOrEqual: return a <= b
            case .greater: return a > b
            case .greaterOrEqual: return a >= b
            default: return nil
            }
        case (_, .in, .list(let items)):
            let results = items.map { compare(left, .equal, $0, options: options) }
            return results.contains(nil) ? nil : results.contains { $0 == true }
        case (_, .between, .list(let bounds)) where bounds.count == 2:
            guard let low = compare(left, .greaterOrEqual, bounds[0], options: options),
                let high = compare(left, .lessOrEqual, bounds[1], options: options)
            else { return nil }
            return low && high
        default:
            return nil
        }
    }
}
