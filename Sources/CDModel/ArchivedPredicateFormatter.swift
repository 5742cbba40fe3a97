import CDArchive
import CDPredicate
import Foundation

/// Turns archived `NSPredicate` and `NSExpression` objects into the ``CDPredicate`` tree, and so
/// into format text printed the way `-[NSPredicate predicateFormat]` prints them.
///
/// The text matters beyond display: a derived attribute's version hash is the SHA-256 of its
/// expression text (docs/format/model-format.md §5.5), e.g. `count:(pages)`. Constants are typed
/// as `NSNumber` prints them (a Boolean as `1`, a whole real as an integer); what the tree
/// cannot hold (an unknown class or operator) becomes opaque text such as `<NSFooExpression>`.
package enum ArchivedPredicateFormatter {
    /// Format text of an archived predicate, or `nil` when `object` is not one.
    package static func predicate(_ object: ArchivedObject?) -> String? {
        predicateTree(object)?.description
    }

    /// Format text of an archived expression.
    package static func expression(_ object: ArchivedObject?) -> String? {
        expressionTree(object)?.description
    }

    static func predicateTree(_ object: ArchivedObject?) -> CDPredicate.Predicate? {
        guard let object, let name = object.className else { return nil }
        switch name {
        case "NSTruePredicate": return .constant(true)
        case "NSFalsePredicate": return .constant(false)
        case "NSCompoundPredicate":
            let parts = object.elements("NSSubpredicates").compactMap(predicateTree)
            switch object.int("NSCompoundPredicateType") ?? 1 {
            case 0: return parts.first.map { .not($0) } ?? .opaque("NOT ")
            case 2: return .or(parts)
            default: return .and(parts)
            }
        case "NSComparisonPredicate":
            let left = expressionTree(object.object("NSLeftExpression")) ?? .opaque("?")
            let right = expressionTree(object.object("NSRightExpression")) ?? .opaque("?")
            let op = object.object("NSPredicateOperator")
            let type = op?.int("NSOperatorType") ?? 4
            let options = comparisonOptions(op?.int("NSOptions") ?? op?.int("NSFlags") ?? 0)
            let quantifier: ComparisonQuantifier =
                switch op?.int("NSModifier") ?? 0 {
                case 1: .all
                case 2: .any
                default: .direct
                }
            guard let comparisonOperator = comparisonOperator(type) else {
                let prefix = quantifier == .direct ? "" : quantifier.rawValue + " "
                return .opaque(prefix + "\(left) <operator \(type)>\(options) \(right)")
            }
            return .comparison(Comparison(left, comparisonOperator, right, options: options, quantifier: quantifier))
        default:
            return nil
        }
    }

    /// `NSOperatorType` values (NSComparisonPredicate.Operator).
    static let operatorTypes: [(Int, ComparisonOperator)] = [
        (0, .less), (1, .lessOrEqual), (2, .greater), (3, .greaterOrEqual), (4, .equal), (5, .notEqual),
        (6, .matches), (7, .like), (8, .beginsWith), (9, .endsWith), (10, .in), (99, .contains), (100, .between),
    ]

    private static func comparisonOperator(_ type: Int) -> ComparisonOperator? {
        operatorTypes.first { $0.0 == type }?.1
    }

    /// `NSComparisonPredicate.Options` bits.
    static let optionBits: [(Int, ComparisonOptions)] = [
        (1, .caseInsensitive), (2, .diacriticInsensitive), (4, .normalized),
    ]

    private static func comparisonOptions(_ bits: Int) -> ComparisonOptions {
        var options: ComparisonOptions = []
        for (bit, option) in optionBits where bits & bit != 0 { options.insert(option) }
        return options
    }

    static func expressionTree(_ object: ArchivedObject?) -> CDPredicate.Expression? {
        guard let object, let name = object.className else { return nil }
        switch name {
        case "NSSelfExpression":
            return .evaluatedObject
        case "NSKeyPathSpecifierExpression":
            return object.string("NSKeyPath").map(keyPath)
        case "NSVariableExpression":
            return .variable(object.string("NSVariable") ?? "")
        case "NSConstantValueExpression":
            return constant(object.archive.decode(object.value("NSConstantValue")))
        case "NSKeyPathExpression", "NSFunctionExpression":
            let selector = object.string("NSSelectorName") ?? ""
            let arguments = object.elements("NSArguments").map { expressionTree($0) ?? .opaque("?") }
            guard selector == "valueForKey:" || selector == "valueForKeyPath:" else { return .function(selector, arguments) }
            let path = arguments.flatMap { argument -> [KeyPathComponent] in
                if case .keyPath(let components) = argument { return components }
                return [.key(argument.description)]
            }
            guard let operand = expressionTree(object.object("NSOperand")), operand != .evaluatedObject else { return .keyPath(path) }
            switch operand {
            case .keyPath(let head): return .keyPath(head + path)
            case .path(let base, let head): return .path(base, head + path)
            default: return .path(operand, path)
            }
        case "NSAggregateExpression":
            return .aggregate(object.elements("NSCollection").map { expressionTree($0) ?? .opaque("?") })
        default:
            return .opaque("<\(name)>")
        }
    }

    /// A key path as archived (`author.name`, `books.@count`); text that is not one stays one key.
    private static func keyPath(_ text: String) -> CDPredicate.Expression {
        .keyPath(KeyPathComponent.components(of: text) ?? [.key(text)])
    }

    private static func constant(_ value: ArchivedValue) -> CDPredicate.Expression {
        switch value {
        case .null: return .constant(.null)
        case .string(let s): return .constant(.string(s))
        case .integer(let i): return .constant(.integer(i))
        case .real(let r): return .constant(r.rounded() == r && abs(r) < 1e15 ? .integer(Int64(r)) : .double(r))
        case .boolean(let b): return .constant(.integer(b ? 1 : 0))
        case .date(let t): return .constant(.date(Date(timeIntervalSinceReferenceDate: t)))
        case .array(let items), .set(let items): return .aggregate(items.map(constant))
        case .uuid(let u): return .opaque(u.uuidString)
        case .url(let u): return .opaque(u)
        case .data(let d): return .opaque("<\(d.count) bytes>")
        case .dictionary: return .opaque("{…}")
        case .object(let className, _): return .opaque("<\(className)>")
        }
    }
}
