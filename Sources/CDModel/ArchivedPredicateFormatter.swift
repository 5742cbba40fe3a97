import CDArchive
import Foundation

/// Turns archived `NSPredicate` and `NSExpression` objects back into format text, the way
/// `-[NSPredicate predicateFormat]` prints them.
///
/// The text matters beyond display: a derived attribute's version hash is the SHA-256 of its
/// expression text (reference/model-format.md §5.5), e.g. `count:(pages)`.
public enum ArchivedPredicateFormatter {
    /// Format text of an archived predicate, or `nil` when `object` is not one.
    public static func predicate(_ object: ArchivedObject?) -> String? {
        guard let object, let name = object.className else { return nil }
        switch name {
        case "NSTruePredicate": return "TRUEPREDICATE"
        case "NSFalsePredicate": return "FALSEPREDICATE"
        case "NSCompoundPredicate":
            let parts = object.elements("NSSubpredicates").compactMap { sub -> String? in
                guard let text = predicate(sub) else { return nil }
                return sub.className == "NSCompoundPredicate" ? "(\(text))" : text
            }
            switch object.int("NSCompoundPredicateType") ?? 1 {
            case 0: return "NOT " + (parts.first ?? "")
            case 2: return parts.joined(separator: " OR ")
            default: return parts.joined(separator: " AND ")
            }
        case "NSComparisonPredicate":
            let left = expression(object.object("NSLeftExpression")) ?? "?"
            let right = expression(object.object("NSRightExpression")) ?? "?"
            let op = object.object("NSPredicateOperator")
            let type = op?.int("NSOperatorType") ?? 4
            let options = op?.int("NSOptions") ?? op?.int("NSFlags") ?? 0
            let modifier = op?.int("NSModifier") ?? 0
            let prefix = modifier == 1 ? "ALL " : modifier == 2 ? "ANY " : ""
            return prefix + left + " " + operatorText(type) + optionsText(options) + " " + right
        default:
            return nil
        }
    }

    private static func operatorText(_ type: Int) -> String {
        switch type {
        case 0: return "<"
        case 1: return "<="
        case 2: return ">"
        case 3: return ">="
        case 4: return "=="
        case 5: return "!="
        case 6: return "MATCHES"
        case 7: return "LIKE"
        case 8: return "BEGINSWITH"
        case 9: return "ENDSWITH"
        case 10: return "IN"
        case 99: return "CONTAINS"
        case 100: return "BETWEEN"
        default: return "<operator \(type)>"
        }
    }

    private static func optionsText(_ options: Int) -> String {
        var letters = ""
        if options & 1 != 0 { letters += "c" }
        if options & 2 != 0 { letters += "d" }
        if options & 4 != 0 { letters += "n" }
        return letters.isEmpty ? "" : "[\(letters)]"
    }

    /// Format text of an archived expression.
    public static func expression(_ object: ArchivedObject?) -> String? {
        guard let object, let name = object.className else { return nil }
        switch name {
        case "NSSelfExpression":
            return "SELF"
        case "NSKeyPathSpecifierExpression":
            return object.string("NSKeyPath")
        case "NSVariableExpression":
            return "$" + (object.string("NSVariable") ?? "")
        case "NSConstantValueExpression":
            return constant(object.archive.decode(object.value("NSConstantValue")))
        case "NSKeyPathExpression", "NSFunctionExpression":
            let selector = object.string("NSSelectorName") ?? ""
            let arguments = object.elements("NSArguments").map { expression($0) ?? "?" }
            if selector == "valueForKey:" || selector == "valueForKeyPath:" {
                let operand = expression(object.object("NSOperand"))
                let path = arguments.joined(separator: ".")
                guard let operand, operand != "SELF" else { return path }
                return operand + "." + path
            }
            return selector + "(" + arguments.joined(separator: ", ") + ")"
        case "NSAggregateExpression":
            let items = object.elements("NSCollection").map { expression($0) ?? "?" }
            return "{" + items.joined(separator: ", ") + "}"
        default:
            return "<\(name)>"
        }
    }

    private static func constant(_ value: ArchivedValue) -> String {
        switch value {
        case .null: return "nil"
        case .string(let s): return "\"" + s.replacingOccurrences(of: "\"", with: "\\\"") + "\""
        case .integer(let i): return String(i)
        case .real(let r): return r.rounded() == r && abs(r) < 1e15 ? String(Int64(r)) : String(r)
        case .boolean(let b): return b ? "1" : "0"
        case .date(let t): return "CAST(\(t), \"NSDate\")"
        case .array(let items), .set(let items): return "{" + items.map(constant).joined(separator: ", ") + "}"
        case .uuid(let u): return u.uuidString
        case .url(let u): return u
        case .data(let d): return "<\(d.count) bytes>"
        case .dictionary: return "{…}"
        case .object(let className, _): return "<\(className)>"
        }
    }
}
