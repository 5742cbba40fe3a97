import Foundation

/// A parsed NSPredicate format string: the tree `PredicateParser.parse(_:arguments:)` builds and
/// `description` prints back in NSPredicate's own format. Queries, model texts (validation rules,
/// fetch requests, partial indexes) and archived `NSPredicate` objects all use this one tree.
public indirect enum Predicate: Sendable, Equatable {
    /// `TRUEPREDICATE` (true) or `FALSEPREDICATE` (false).
    case constant(Bool)
    /// One comparison, such as `age >= 18` or `ANY tags.name ==[c] "swift"`.
    case comparison(Comparison)
    /// `NOT` (or `!`) before a predicate.
    case not(Predicate)
    /// Operands of one `AND` chain, in source order. A parenthesised chain stays a nested
    /// operand, so printing and re-parsing gives back the same tree.
    case and([Predicate])
    /// Operands of one `OR` chain, in source order (nested like `and`).
    case or([Predicate])
    /// Text standing for a predicate the tree cannot hold, such as an archived comparison with an
    /// operator cdstore does not know. Printed as it is; the parser never produces it, so a
    /// model that contains one is shown faithfully but cannot be archived again.
    case opaque(String)
}

/// `left op[options] right`, optionally quantified over a to-many left side.
public struct Comparison: Sendable, Equatable {
    /// `ANY`, `ALL` or `NONE` before the left side, or `.direct` when there is none.
    public var quantifier: ComparisonQuantifier
    /// The side before the operator, usually a key path.
    public var left: Expression
    /// The operator between the two sides.
    public var op: ComparisonOperator
    /// The bracketed letters after the operator (`[cd]`); empty when there are none.
    public var options: ComparisonOptions
    /// The side after the operator, usually a constant or a variable.
    public var right: Expression

    /// A comparison of `left` and `right`, with no options and no quantifier unless given.
    public init(
        _ left: Expression, _ op: ComparisonOperator, _ right: Expression,
        options: ComparisonOptions = [], quantifier: ComparisonQuantifier = .direct
    ) {
        self.quantifier = quantifier
        self.left = left
        self.op = op
        self.options = options
        self.right = right
    }
}

/// The `ANY`/`ALL`/`NONE` prefix of a comparison. `SOME` is parsed as `any`.
public enum ComparisonQuantifier: String, Sendable, Equatable, CaseIterable {
    case direct = ""
    case any = "ANY"
    case all = "ALL"
    case none = "NONE"
}

/// The comparison operators, named by their canonical spelling (`=` parses as `==`, `<>` as `!=`,
/// `=<` as `<=` and `=>` as `>=`).
public enum ComparisonOperator: String, Sendable, Equatable, CaseIterable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    /// The right side is a two-element aggregate `{low, high}` or an expression giving one.
    case between = "BETWEEN"
    case `in` = "IN"
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case contains = "CONTAINS"
    /// `*` and `?` wildcards stay inside the string literal; matching is the SQL layer's job.
    case like = "LIKE"
    /// An ICU regular expression in the string literal.
    case matches = "MATCHES"
}

/// The bracketed options after an operator: `[c]`, `[d]`, `[n]`, `[l]` in any combination.
public struct ComparisonOptions: OptionSet, Sendable, Equatable, Hashable {
    /// One bit per option letter, c d n l from the lowest bit up: cdstore's own encoding, not
    /// the `flags` bits Core Data passes to its SQL string functions.
    public let rawValue: UInt8
    /// The options whose bits are set in `rawValue`.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `c`
    public static let caseInsensitive = ComparisonOptions(rawValue: 1 << 0)
    /// `d`
    public static let diacriticInsensitive = ComparisonOptions(rawValue: 1 << 1)
    /// `n`: the operands are already normalized, so Core Data may compare bytes.
    public static let normalized = ComparisonOptions(rawValue: 1 << 2)
    /// `l`: locale-sensitive.
    public static let localeSensitive = ComparisonOptions(rawValue: 1 << 3)

    /// Option letters in the order they are printed.
    package static let letters: [(Character, ComparisonOptions)] = [
        ("c", .caseInsensitive), ("d", .diacriticInsensitive), ("n", .normalized), ("l", .localeSensitive),
    ]
}

/// One side of a comparison.
public indirect enum Expression: Sendable, Equatable {
    /// A literal, or a `%@`-style argument already substituted.
    case constant(Value)
    /// `SELF`: the object being evaluated.
    case evaluatedObject
    /// A key path from the evaluated object: `name`, `author.name`, `books.@count`.
    /// `SELF.name` parses as `keyPath([.key("name")])`.
    case keyPath([KeyPathComponent])
    /// A key path from another expression: `$book.title`, `SUBQUERY(…).@count`.
    case path(Expression, [KeyPathComponent])
    /// `$name`: a subquery variable or a substitution variable.
    case variable(String)
    /// `{a, b, …}`
    case aggregate([Expression])
    /// `SUBQUERY(collection, $variable, predicate)`
    case subquery(collection: Expression, variable: String, predicate: Predicate)
    /// `CAST(value, "Type")` that the parser could not fold into a constant. Casts of numbers and
    /// ISO-8601 strings to `"NSDate"` become `.constant(.date(…))` instead.
    case cast(Expression, type: String)
    /// `name(arguments)`: a function in NSPredicate's own spelling, such as `count:(pages)` or
    /// `now()` in a derived attribute. Only model texts may contain one (see
    /// `PredicateParser.parseModelText(_:)`); queries cannot run them.
    case function(String, [Expression])
    /// Text standing for an expression the tree cannot hold (an archived expression class or
    /// constant cdstore does not know); printed as it is, never produced by the parser.
    case opaque(String)
}

/// One step of a key path.
public enum KeyPathComponent: Sendable, Equatable {
    /// A property or relationship name (written `#name` when it is a reserved word).
    case key(String)
    /// `@count`, `@sum`, `@avg`, `@min` or `@max`.
    case collectionOperator(CollectionOperator)
}

/// The collection operators Core Data can translate to SQL.
public enum CollectionOperator: String, Sendable, Equatable, CaseIterable {
    case count, sum, avg, min, max
}

/// A literal value, from the format string or from a substituted argument.
public enum Value: Sendable, Equatable {
    /// `nil` / `NULL`
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case date(Date)
}
