import CDFetch
import Testing

/// Short spellings for expected trees, so each test case reads like the predicate it checks.

/// `"a.b.@count"` → `.keyPath([.key("a"), .key("b"), .collectionOperator(.count)])`.
func key(_ path: String) -> Expression {
    .keyPath(components(path))
}

func components(_ path: String) -> [KeyPathComponent] {
    path.split(separator: ".").map { part in
        part.first == "@" ? .collectionOperator(CollectionOperator(rawValue: String(part.dropFirst()))!) : .key(String(part))
    }
}

func str(_ value: String) -> Expression { .constant(.string(value)) }
func int(_ value: Int64) -> Expression { .constant(.integer(value)) }
func dbl(_ value: Double) -> Expression { .constant(.double(value)) }
func bool(_ value: Bool) -> Expression { .constant(.bool(value)) }
let null = Expression.constant(.null)

func cmp(_ left: Expression, _ op: ComparisonOperator, _ right: Expression,
         _ options: ComparisonOptions = [], _ quantifier: ComparisonQuantifier = .direct) -> Predicate {
    .comparison(Comparison(left, op, right, options: options, quantifier: quantifier))
}

/// A format string, its arguments and the tree it must parse to.
struct ParseCase: Sendable, CustomTestStringConvertible {
    var format: String
    var arguments: [String] = []
    var expected: Predicate

    init(_ format: String, _ arguments: [String] = [], _ expected: Predicate) {
        self.format = format
        self.arguments = arguments
        self.expected = expected
    }

    init(_ format: String, _ expected: Predicate) {
        self.init(format, [], expected)
    }

    var testDescription: String { format + (arguments.isEmpty ? "" : " \(arguments)") }
}
