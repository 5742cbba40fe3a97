import CDPredicate

// Foundation declares `Predicate`, `PredicateError` and `Expression` too; inside this module
// these names mean CDPredicate's, as they did when the tree lived here.
typealias Predicate = CDPredicate.Predicate
typealias PredicateError = CDPredicate.PredicateError
typealias Expression = CDPredicate.Expression
