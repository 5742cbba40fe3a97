import Foundation

/// Canonical format strings, in the style of `-[NSPredicate predicateFormat]`: `==` and `!=`
/// for the symbol aliases, upper-case keywords, double-quoted strings, dates as
/// `CAST(<seconds since 2001>, "NSDate")`, and parentheses only around compound operands (an
/// `AND`, `OR` or `NOT` inside another one, as Core Data prints them).
/// `PredicateParser.parse(p.description)` gives back `p` for every tree the parser builds, and
/// `parseModelText` for every tree of a model.
extension Predicate: CustomStringConvertible {
    /// The predicate in canonical NSPredicate format, which parses back to the same tree.
    public var description: String {
        switch self {
        case .constant(let value): return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .comparison(let comparison): return comparison.description
        case .not(let operand): return "NOT " + operand.descriptionAsOperand
        case .and(let operands): return operands.map(\.descriptionAsOperand).joined(separator: " AND ")
        case .or(let operands): return operands.map(\.descriptionAsOperand).joined(separator: " OR ")
        case .opaque(let text): return text
        }
    }

    /// Compound operands keep their own parentheses, so nesting survives a round trip.
    private var descriptionAsOperand: String {
        switch self {
        case .and, .or, .not: return "(" + description + ")"
        default: return description
        }
    }
}

extension Comparison: CustomStringConvertible {
    /// `[quantifier ]left op[options] right`, as NSPredicate prints a comparison.
    public var description: String {
        let prefix = quantifier == .direct ? "" : quantifier.rawValue + " "
        return prefix + left.description + " " + op.rawValue + options.description + " " + right.description
    }
}

extension ComparisonOptions: CustomStringConvertible {
    /// `[cd]`, or empty for no options.
    public var description: String {
        let letters = Self.letters.filter { contains($0.1) }.map(\.0)
        return letters.isEmpty ? "" : "[" + String(letters) + "]"
    }
}

extension Expression: CustomStringConvertible {
    /// The expression as it is written in a format string: `SELF`, `author.name`, `$x`, `{1, 2}`.
    public var description: String {
        switch self {
        case .constant(let value): return value.description
        case .evaluatedObject: return "SELF"
        case .keyPath(let components): return components.map(\.description).joined(separator: ".")
        case .path(let base, let components):
            return ([base.description] + components.map(\.description)).joined(separator: ".")
        case .variable(let name): return "$" + name
        case .aggregate(let elements): return "{" + elements.map(\.description).joined(separator: ", ") + "}"
        case .subquery(let collection, let variable, let predicate):
            return "SUBQUERY(\(collection), $\(variable), \(predicate))"
        case .cast(let value, let type): return "CAST(\(value), \(Value.quoted(type)))"
        case .function(let name, let arguments): return name + "(" + arguments.map(\.description).joined(separator: ", ") + ")"
        case .opaque(let text): return text
        }
    }
}

extension KeyPathComponent: CustomStringConvertible {
    /// Keys that are reserved words get the `#` escape.
    public var description: String {
        switch self {
        case .key(let key): return PredicateParser.reservedWords.contains(key.uppercased()) ? "#" + key : key
        case .collectionOperator(let op): return "@" + op.rawValue
        }
    }
}

extension Value: CustomStringConvertible {
    /// The literal as a format string writes it: `nil`, `TRUE`, `42`, a quoted string, or a
    /// date as `CAST(<seconds since 2001>, "NSDate")`.
    public var description: String {
        switch self {
        case .null: return "nil"
        case .bool(let value): return value ? "TRUE" : "FALSE"
        case .integer(let value): return String(value)
        case .double(let value): return value.description
        case .string(let value): return Self.quoted(value)
        case .date(let date): return "CAST(\(date.timeIntervalSinceReferenceDate.description), \"NSDate\")"
        }
    }

    /// A double-quoted literal; quotes, backslashes and control characters are escaped. A Character
    /// that would merge with a neighbouring quote, backslash or hex digit (a leading combining mark,
    /// an emoji modifier, a quote carrying a mark, an invisible scalar inside a cluster) is written
    /// entirely as `\uXXXX` escapes, since the tokenizer reads Characters.
    package static func quoted(_ string: String) -> String {
        var result = "\""
        for character in string {
            let scalars = character.unicodeScalars
            let mergesWithNeighbours = ("a" + String(character)).count != 2 || (String(character) + "a").count != 2
            let escapeAll =
                mergesWithNeighbours
                || (scalars.count > 1 && scalars.contains { $0 == "\"" || $0 == "\\" || isInvisible($0) })
            for scalar in scalars {
                switch scalar {
                case _ where escapeAll || isInvisible(scalar): result += unicodeEscape(scalar)
                case "\"": result += "\\\""
                case "\\": result += "\\\\"
                case "\n": result += "\\n"
                case "\t": result += "\\t"
                case "\r": result += "\\r"
                default: result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }

    /// `\uXXXX`, or a surrogate pair of them above U+FFFF.
    private static func unicodeEscape(_ scalar: Unicode.Scalar) -> String {
        scalar.utf16.map { unit in
            let hex = String(unit, radix: 16, uppercase: true)
            return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        }.joined()
    }

    /// Control and format characters (other than tab, line feed and return), which a reader could not see.
    private static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format: return !["\n", "\t", "\r"].contains(scalar)
        default: return false
        }
    }
}
