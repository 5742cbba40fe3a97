import CDModel
import CDPredicate
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
        let predicate: CDPredicate.Predicate
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
            let left: CDPredicate.Expression = isString ? .keyPath([.key("length")]) : .evaluatedObject
            add(.comparison(Comparison(left, op, .constant(value))), warning: nil)
        }
        bound(attribute.minValue, .greaterOrEqual)
        bound(attribute.maxValue, .lessOrEqual)
        if let pattern = attribute.regularExpression, !pattern.isEmpty {
            add(.comparison(Comparison(.evaluatedObject, .matches, .constant(.string(pattern)))), warning: nil)
        }
        for rule in attribute.validationRules {
            guard let parsed = try? PredicateParser.parseModelText(rule.predicate) else {
                unchecked.append("\(attribute.name): \(rule.predicate)")
                continue
            }
            add(parsed, warning: rule.warning)
        }
    }

    private mutating func add(_ predicate: CDPredicate.Predicate, warning: String?) {
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
        return rules.filter { PredicateEvaluator.evaluate($0.predicate, on: value.evaluatorOperand) == false }
    }
}

/// The error code Core Data raises when a validation predicate fails, read from its shape
/// (errors.md §1.1): a length bound 1670/1660, a number bound 1620/1610, a date bound
/// 1640/1630, `SELF MATCHES` 1680, anything else 1550.
package enum ValidationRuleCode {
    package static func code(for predicate: CDPredicate.Predicate) -> Int {
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

extension ObjectValue {
    /// The value as ``PredicateEvaluator`` compares it (`SELF`), or nil for a type it cannot compare.
    var evaluatorOperand: PredicateEvaluator.Operand? {
        switch self {
        case .null: return .null
        case .integer(let integer): return .number(Double(integer))
        case .boolean(let flag): return .number(flag ? 1 : 0)
        case .decimal(let number), .double(let number), .date(let number): return .number(number)
        case .string(let text), .uri(let text): return .text(text)
        case .uuid(let uuid): return .text(uuid.uuidString)
        default: return nil
        }
    }
}
