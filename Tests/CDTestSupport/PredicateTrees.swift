import CDPredicate

/// Short spellings for expected trees, so each test case reads like the predicate it checks.

/// `"a.b.@count"` → `.keyPath([.key("a"), .key("b"), .collectionOperator(.count)])`.
public func key(_ path: String) -> CDPredicate.Expression {
    .keyPath(components(path))
}

public func components(_ path: String) -> [KeyPathComponent] {
    path.split(separator: ".").map { part in
        part.first == "@" ? .collectionOperator(CollectionOperator(rawValue: String(part.dropFirst()))!) : .key(String(part))
    }
}

public func str(_ value: String) -> CDPredicate.Expression { .constant(.string(value)) }
public func int(_ value: Int64) -> CDPredicate.Expression { .constant(.integer(value)) }
public func dbl(_ value: Double) -> CDPredicate.Expression { .constant(.double(value)) }
public func bool(_ value: Bool) -> CDPredicate.Expression { .constant(.bool(value)) }
public let null = CDPredicate.Expression.constant(.null)

public func cmp(
    _ left: CDPredicate.Expression, _ op: ComparisonOperator, _ right: CDPredicate.Expression,
    _ options: ComparisonOptions = [], _ quantifier: ComparisonQuantifier = .direct
) -> CDPredicate.Predicate {
    .comparison(Comparison(left, op, right, options: options, quantifier: quantifier))
}

/// The column of the caret in `error`'s caret diagram: the offset itself, or, when text before
/// it was cut, the window plus one for the `…` mark.
public func caretColumn(of error: PredicateError) -> Int {
    error.offset > PredicateError.caretWindow ? PredicateError.caretWindow + 1 : error.offset
}
