import CDBase
import CDPredicate
import Foundation

/// Turns a fetch index's partial-index predicate (format text such as
/// `density == -1 AND label != -1`) into the WHERE clause Core Data writes
/// (`(ZDENSITY = -1 AND ZLABEL <> -1)`).
///
/// Observed style (VUIndex, Photos): a single comparison stands bare; every compound predicate is
/// wrapped in parentheses, nested ones included; `!=` is `<>`; `== nil` is `IS NULL`. Only
/// comparisons of a property with a constant are handled; anything else returns `nil`. `NOT`
/// has never been seen in a store, so its rendering is a guess.
enum PartialIndexSQL {
    /// `column` maps a property name to its column, or `nil` when it has none.
    static func translate(_ predicate: String, column: (String) -> String?) -> String? {
        guard let parsed = try? PredicateParser.parseModelText(predicate) else { return nil }
        return sql(parsed, column: column)
    }

    private static func sql(_ predicate: CDPredicate.Predicate, column: (String) -> String?) -> String? {
        switch predicate {
        case .and(let parts): return compound(parts, separator: "AND", column: column)
        case .or(let parts): return compound(parts, separator: "OR", column: column)
        case .not(let operand):
            guard let inner = sql(operand, column: column) else { return nil }
            return "NOT " + (inner.hasPrefix("(") ? inner : "(\(inner))")
        case .comparison(let comparison): return self.comparison(comparison, column: column)
        case .constant, .opaque: return nil
        }
    }

    private static func compound(_ parts: [CDPredicate.Predicate], separator: String, column: (String) -> String?) -> String? {
        var clauses: [String] = []
        for part in parts {
            guard let clause = sql(part, column: column) else { return nil }
            clauses.append(clause)
        }
        return "(" + clauses.joined(separator: " \(separator) ") + ")"
    }

    /// `key op constant`, the only shape seen in fetch indexes.
    private static func comparison(_ comparison: Comparison, column: (String) -> String?) -> String? {
        guard comparison.quantifier == .direct, comparison.options.isEmpty,
            case .keyPath(let components) = comparison.left, case .constant(let value) = comparison.right
        else { return nil }
        var keys: [String] = []
        for component in components {
            guard case .key(let key) = component else { return nil }
            keys.append(key)
        }
        guard let name = column(keys.joined(separator: ".")) else { return nil }
        let literal: String
        switch value {
        case .null: literal = "NULL"
        case .bool(let flag): literal = flag ? "1" : "0"
        case .integer(let integer): literal = String(integer)
        case .double(let double): literal = double.description
        case .string(let text): literal = "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
        case .date: return nil
        }
        let isNil = value == .null
        let sqlOperator: String
        switch comparison.op {
        case .equal: sqlOperator = isNil ? "IS" : "="
        case .notEqual: sqlOperator = isNil ? "IS NOT" : "<>"
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            guard !isNil else { return nil }
            sqlOperator = comparison.op.rawValue
        default:
            return nil
        }
        return "\(name.renderedSQLIdentifier) \(sqlOperator) \(literal)"
    }
}
