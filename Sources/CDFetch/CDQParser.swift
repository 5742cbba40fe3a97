import CDModel
import CDPredicate
import Foundation

/// Parses CDQ query chains (RubyMotion's Core Data Query, `infinitered/cdq`) into a
/// ``FetchRequest``. The chain is read as data: Ruby literals only, nothing is evaluated.
///
///     chain      := entity ("." query-call)* ["." terminal | "[" index ["," length] "]"]
///     entity     := Constant | "cdq(" (string | Constant) ")"
///     query-call := ("where" | "and" | "or") condition | "sort_by(" key ["," order | "," sort-options] ")"
///                 | "limit(" integer | "nil" ")" | "offset(" integer | "nil" ")" | "all"
///     condition  := "(" key ")" comparison            -- .where(:name).eq('x')
///                 | "(" hash ")"                       -- .where(name: 'x', count: 15): ANDed ==
///                 | "(" format-string ("," value)* ")" -- NSPredicate format, values fill %@ %K %d %f
///                 | "(" "cdq(" key ")" comparison ("." query-call)* ")"   -- a parenthesised group
///                 | ["()"] comparison                  -- the key of the comparison just before
///     comparison := "." operator "(" value ["," options] ")" | ".between(" value "," value ")"
///     operator   := eq | ne | lt | le | gt | ge | contains | matches | in | begins_with | ends_with
///                 | equal | not_equal | less_than | less_than_or_equal | greater_than
///                 | greater_than_or_equal | include
///     terminal   := "first" ["(" n ")"] | "last" ["(" n ")"] | "count" | "length" | "size"
///                 | ("sum" | "average" | "min" | "minimum" | "max" | "maximum") "(" key ")"
///                 | "calculate(" (:sum | :average | :min | :max | :count) "," key ")" | "array" | "to_a"
///     key        := :name | :"key.path" | 'key.path'
///     value      := 'string' | "string" | integer | float | true | false | nil | [value, …] (for `in`
///                 and format arguments) | Time.now | NSDate.date | Time.parse('ISO-8601')
///                 | Time.at(seconds) | Time.utc(y, m, d, h, min, s) | Time.local(y, m, d, h, min, s)
///     options    := NSCaseInsensitivePredicateOption | NSDiacriticInsensitivePredicateOption
///                 | NSNormalizedPredicateOption | integer, joined with "|"
///
/// The semantics follow CDQ's sources: `where` is `and` (`motion/cdq/query.rb`); conditions
/// combine strictly left to right, each `.and`/`.or` wrapping what came before; `.and`/`.or`
/// without an argument reuse the key of the comparison just before them, and `sort_by`, `limit`,
/// `offset` forget that key as CDQ's query copies do; `sort_by`'s `case_insensitive: true` sorts
/// with `localizedCaseInsensitiveCompare:` as `query.rb` does; the operators and their aliases
/// are those of `motion/cdq/partial_predicate.rb`; the terminals those of
/// `motion/cdq/targeted_query.rb` (`first` is `limit(1)`, `last` the final object, `[i, n]` is
/// `offset(i).limit(n)`). Choices of cdstore's own: `first(n)` keeps a smaller earlier limit (it
/// takes the first n of the result); `last(n)` sets ``FetchRequest/takesLast`` and may not follow
/// `limit`, `offset` or `[…]`; `limit(0)` means no limit, as `fetchLimit` 0 does; a sort order
/// must start with `asc` or `desc` (CDQ takes anything else as ascending); dates without a zone are
/// UTC, as `CAST("…", "NSDate")` reads them, except `Time.local`'s.
package enum CDQParser {
    /// Deeper nesting of `cdq(…)` conditions is an error instead of a stack overflow.
    package static let maximumNesting = 100

    /// Parses `text`. `now` is the value of `Time.now` (and `NSDate.date`, `Time.new`).
    package static func parse(_ text: String, now: Date = Date()) throws(CDPredicate.PredicateError) -> FetchRequest {
        var parser = CDQChainParser(text: text, tokens: try CDQTokenizer.tokenize(text), now: now)
        return try parser.parseWhole()
    }

    /// The comparison methods of a partial predicate, CDQ's aliases included
    /// (`motion/cdq/partial_predicate.rb`; `between` is handled apart, it takes two values).
    static let comparisonMethods: [String: ComparisonOperator] = [
        "eq": .equal, "equal": .equal,
        "ne": .notEqual, "not_equal": .notEqual,
        "lt": .less, "less_than": .less,
        "le": .lessOrEqual, "less_than_or_equal": .lessOrEqual,
        "gt": .greater, "greater_than": .greater,
        "ge": .greaterOrEqual, "greater_than_or_equal": .greaterOrEqual,
        "contains": .contains, "include": .contains,
        "matches": .matches,
        "in": .in,
        "begins_with": .beginsWith,
        "ends_with": .endsWith,
    ]

    /// `sum`, `average`, … and CDQ's `minimum`/`maximum` aliases.
    static let aggregateMethods: [String: AggregateFunction] = [
        "sum": .sum, "average": .average, "min": .min, "minimum": .min, "max": .max, "maximum": .max,
    ]

    /// Methods of CDQ objects and entity classes that change data; cdstore only reads.
    static let writingMethods: Set<String> = [
        "create", "new", "destroy", "destroy_all", "destroy_all!", "save", "delete", "update",
    ]

    /// Enumerable methods CDQ queries answer that need a Ruby block.
    static let blockMethods: Set<String> = [
        "each", "map", "collect", "select", "filter", "reject", "find", "detect", "each_with_index",
        "sort", "group_by", "inject", "reduce", "any?", "all?", "none?", "find_all", "sort_by!",
    ]
}
