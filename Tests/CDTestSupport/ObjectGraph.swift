import CDPredicate
import Foundation

/// The predicate tree of CDPredicate, not Foundation's `#Predicate` and `Expression` types of the
/// same names: the oracle moved here from CDPredicate, where the names needed no qualification.
typealias Predicate = CDPredicate.Predicate
/// See ``Predicate``.
typealias Expression = CDPredicate.Expression

/// An attribute's stored value as ``ObjectGraphEvaluator`` compares it.
package enum GraphValue: Sendable, Equatable {
    case null
    /// Integers and booleans (0 or 1).
    case integer(Int64)
    /// Floats, doubles and decimals.
    case double(Double)
    case string(String)
    /// Seconds since 2001-01-01T00:00:00Z, as the column holds it.
    case date(Double)
    case uuid(UUID)
    /// A value the evaluator compares only with nil: binary data, transformables, URIs.
    case opaque
}

/// One property of an object in the graph the evaluator walks.
package enum GraphProperty<Object> {
    case attribute(GraphValue)
    /// The destination object (nil when the relationship is empty) and the relationship's
    /// destination entity.
    case toOne(Object?, destination: String)
    /// The members, in any order, and the relationship's destination entity.
    case toMany([Object], destination: String)
}

/// What a property is in the model, for key paths that go on from nil.
package enum GraphPropertyKind: Sendable, Equatable {
    case attribute
    case toOne(destination: String)
    case toMany(destination: String)
}

/// An object the evaluator can walk: its concrete entity, its `Z_PK` and its properties.
/// CDPredicate knows no stores; the tests' loader (and anything else) supplies the objects.
package protocol GraphObject {
    /// The object's concrete entity.
    var entityName: String { get }
    /// `Z_PK`: the `pN` of its object ID.
    var primaryKey: Int64 { get }
    /// The property called `name`; nil when the entity has no such property.
    func property(named name: String) -> GraphProperty<Self>?
}

/// The model as the evaluator needs it: inheritance and the kinds of properties.
package protocol GraphSchema {
    /// Whether `entity` is `ancestor` or one of its sub-entities.
    func isEntity(_ entity: String, kindOf ancestor: String) -> Bool
    /// What `name` is on `entity` (its own property or an inherited one); nil when unknown.
    func propertyKind(_ name: String, ofEntity entity: String) -> GraphPropertyKind?
}

/// Which semantics ``ObjectGraphEvaluator`` follows (`docs/format/predicate-semantics.md`, the
/// contract between the SQL generator and this evaluator).
package enum EvaluationMode: String, Sendable, CaseIterable {
    /// NSPredicate's in-memory `evaluate(with:)`: two-valued; ANY, ALL and NONE over the members.
    case nsPredicate
    /// What Core Data's SQL returns: three-valued logic, a join dimension per to-many
    /// comparison (INNER or OUTER), correlated subqueries for ALL and aggregates.
    case coreDataSQL
}

/// The known differences between Core Data's SQL and NSPredicate, by the names the contract gives them.
package enum PredicateQuirk: String, Sendable, CaseIterable, Comparable {
    /// S1/S4: a comparison with NULL is UNKNOWN, and NOT UNKNOWN is still UNKNOWN.
    case nilComparison
    /// S3: NONE and NOT (ANY …) run as joins: "some row fails", not "no member matches".
    case toManyJoinUnderNot
    /// S3: the NULL member of an OUTER join can satisfy a comparison with nil.
    case nullMemberUnderOr
    /// S5: `@avg`, `@min`, `@max` of no values are NULL in SQL.
    case emptyAggregate

    package static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A predicate shape the evaluator cannot answer for; it never guesses.
package struct NotEvaluable: Error, Sendable, Equatable, CustomStringConvertible {
    package let reason: String
    package init(_ reason: String) { self.reason = reason }
    package var description: String { "not evaluable: " + reason }
}
