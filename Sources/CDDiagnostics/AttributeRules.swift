import CDFetch
import CDModel
import CDStore
import Foundation

/// The checks Core Data makes on one attribute's value when it validates an object, each with
/// the error code it raises (errors.md §1.1).
///
/// Xcode's minimum, maximum and regular expression reach a compiled model (`.mom`, a store's
/// cache) as validation predicates — `length >= 3`, `SELF <= 100`, `SELF MATCHES "…"` — and a
/// `contents` file as `minValueString`, `maxValueString` and `regularExpressionString`; both
/// become the same rules here. Each conjunct of a predicate is checked on its own so the
/// specific code can be named: a length bound gives 1670/1660, a number bound 1620/1610, a date
/// bound 1640/1630, `MATCHES` 1680, and any other predicate 1550 with the model's warning text.
/// Nil values pass: a missing value is the mandatory rule's business (1570), as in Core Data.
struct AttributeRules {
    struct Rule {
        let code: Int
        let predicate: CDFetch.Predicate
        /// The model's warning for a validation predicate, shown with 1550.
        let warning: String?
    }

    let attribute: AttributeDescription
    private(set) var rules: [Rule] = []
    /// Predicates cdstore could not parse or evaluate.
    private(set) var unchecked: [String] = []

    init(_ attribute: AttributeDescription) {
        self.attribute = attribute
        let isString = attribute.type == .string
        let isDate = attribute.type == .date
        func bound(_ text: String?, _ op: ComparisonOperator) {
            guard let text, let number = Double(text) else { return }
            let value: Value = isDate ? .date(Date(timeIntervalSinceReferenceDate: number)) : .double(number)
            let left: CDFetch.Expression = isString ? .keyPath([.key("length")]) : .evaluatedObject
            add(.comparison(Comparison(left, op, .constant(value))), warning: nil)
        }
        bound(attribute.minValue, .greaterOrEqual)
        bound(attribute.maxValue, .lessOrEqual)
        if let pattern = attribute.regularExpression, !pattern.isEmpty {
            add(.comparison(Comparison(.evaluatedObject, .matches, .constant(.string(pattern)))), warning: nil)
        }
        for rule in attribute.validationRules {
            guard let parsed = try? PredicateParser.parse(rule.predicate) else {
                unchecked.append("\(attribute.name): \(rule.predicate)")
                continue
            }
            add(parsed, warning: rule.warning)
        }
    }

    private mutating func add(_ predicate: CDFetch.Predicate, warning: String?) {
        if case .and(let parts) = predicate {
            for part in parts { add(part, warning: warning) }
            return
        }
        guard PredicateEvaluator.canEvaluate(predicate) else {
            unchecked.append("\(attribute.name): \(predicate)")
            return
        }
        rules.append(Rule(code: ValidationRuleCode.code(for: predicate), predicate: predicate, warning: warning))
    }

    /// The rules `value` breaks.
    func failures(_ value: ObjectValue) -> [Rule] {
        if case .null = value { return [] }
        return rules.filter { PredicateEvaluator.evaluate($0.predicate, value: value) == false }
    }
}

/// The error code Core Data raises when a validation predicate fails, read from its shape
/// (errors.md §1.1): a length bound 1670/1660, a number bound 1620/1610, a date bound
/// 1640/1630, `SELF MATCHES` 1680, anything else 1550.
public enum ValidationRuleCode {
    public static func code(for predicate: CDFetch.Predicate) -> Int {
        guard case .comparison(let comparison) = predicate, comparison.quantifier == .direct else { return 1550 }
        let lower = [ComparisonOperator.greaterOrEqual, .greater].contains(comparison.op)
        let upper = [ComparisonOperator.lessOrEqual, .less].contains(comparison.op)
        switch (comparison.left, comparison.right) {
        case (.keyPath([.key("length")]), .constant), (.path(.evaluatedObject, [.key("length")]), .constant):
            return lower ? 1670 : upper ? 1660 : 1550
        case (.evaluatedObject, .constant(.date)):
            return lower ? 1640 : upper ? 1630 : 1550
        case (.evaluatedObject, .constant(.integer)), (.evaluatedObject, .constant(.double)):
            return lower ? 1620 : upper ? 1610 : 1550
        case (.evaluatedObject, .constant(.string)) where comparison.op == .matches:
            return 1680
        default:
            return 1550
        }
    }
}

/// Evaluates a validation predicate on one attribute value (`SELF`, and `length` of a string),
/// the way NSPredicate evaluates it on the value Core Data validates.
enum PredicateEvaluator {
    private enum Operand {
        case null, number(Double), text(String), list([Operand])
    }

    static func canEvaluate(_ predicate: CDFetch.Predicate) -> Bool {
        evaluate(predicate, value: .string("x")) != nil || evaluate(predicate, value: .double(1)) != nil
    }

    /// True or false, or nil when the predicate uses something other than `SELF`, `length` and
    /// constants.
    static func evaluate(_ predicate: CDFetch.Predicate, value: ObjectValue) -> Bool? {
        switch predicate {
        case .constant(let result): return result
        case .not(let inner): return evaluate(inner, value: value).map { !$0 }
        case .and(let parts):
            let results = parts.map { evaluate($0, value: value) }
            return results.contains(nil) ? nil : results.allSatisfy { $0 == true }
        case .or(let parts):
            let results = parts.map { evaluate($0, value: value) }
            return results.contains(nil) ? nil : results.contains { $0 == true }
        case .comparison(let comparison):
            guard comparison.quantifier == .direct, let left = operand(comparison.left, value),
                  let right = operand(comparison.right, value) else { return nil }
            return compare(left, comparison.op, right, options: comparison.options)
        }
    }

    private static func operand(_ expression: CDFetch.Expression, _ value: ObjectValue) -> Operand? {
        switch expression {
        case .evaluatedObject: return selfOperand(value)
        case .keyPath([.key("length")]), .path(.evaluatedObject, [.key("length")]):
            if case .string(let text) = value { return .number(Double(text.utf16.count)) }
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

    private static func selfOperand(_ value: ObjectValue) -> Operand? {
        switch value {
        case .null: return .null
        case .integer(let integer): return .number(Double(integer))
        case .boolean(let flag): return .number(flag ? 1 : 0)
        case .decimal(let number), .double(let number), .date(let number): return .number(number)
        case .string(let text), .uri(let text): return .text(text)
        case .uuid(let uuid): return .text(uuid.uuidString)
        default: return nil
        }
    }

    private static func compare(_ left: Operand, _ op: ComparisonOperator, _ right: Operand, options: ComparisonOptions) -> Bool? {
        var flags = 0
        if options.contains(.caseInsensitive) { flags |= CoreDataSQLFunctions.Flag.caseInsensitive }
        if options.contains(.diacriticInsensitive) { flags |= CoreDataSQLFunctions.Flag.diacriticInsensitive }
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
            case .equal: return CoreDataSQLFunctions.stringSearch(a, b, flags: flags, operation: .equal)
            case .notEqual: return !CoreDataSQLFunctions.stringSearch(a, b, flags: flags, operation: .equal)
            case .beginsWith: return CoreDataSQLFunctions.stringSearch(a, b, flags: flags, operation: .beginsWith)
            case .endsWith: return CoreDataSQLFunctions.stringSearch(a, b, flags: flags, operation: .endsWith)
            case .contains: return CoreDataSQLFunctions.stringSearch(a, b, flags: flags, operation: .contains)
            case .like: return CoreDataSQLFunctions.like(a, pattern: b, flags: flags)
            case .matches: return try? CoreDataSQLFunctions.matches(a, pattern: b, flags: flags)
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
                  let high = compare(left, .lessOrEqual, bounds[1], options: options) else { return nil }
            return low && high
        default:
            return nil
        }
    }
}
