import CDPredicate
import Foundation

/// The two readings of a predicate: Core Data's SQL (`coreDataSQL`) and NSPredicate in memory (`nsPredicate`).
extension ObjectGraphEvaluator {
    func truths<Object>(_ predicate: Predicate, _ scope: Scope<Object>, inner: Bool) throws(NotEvaluable) -> Truths {
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

    func comparisonTruths<Object>(_ comparison: Comparison, _ scope: Scope<Object>, inner: Bool)
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

    func holds<Object>(_ predicate: Predicate, _ scope: Scope<Object>) throws(NotEvaluable) -> Bool {
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
    static func twoValued(_ truth: Truth, _ op: ComparisonOperator) -> Bool {
        switch truth {
        case .true: return true
        case .false: return false
        case .unknown: return op == .notEqual
        }
    }
}
