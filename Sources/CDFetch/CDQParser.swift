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

/// A query being built: CDQ's `CDQQuery` state, plus what `.and`/`.or` chaining needs.
struct CDQQueryState {
    var predicate: Predicate?
    /// Set when the top of `predicate` is a compound the chain itself built with `.and`/`.or`: the
    /// next call of the same kind appends to it instead of nesting, which prints the way one reads
    /// the chain and means the same (a parenthesised operand from `cdq(…)`, a hash or a format
    /// string stays one operand).
    var chainCompound: CDQCombination?
    /// CDQ's `saved_key`: the key of the comparison just made, for `.and`/`.or` without an argument.
    var savedKey: CDQKey?
    var sortDescriptors: [CDModel.SortDescriptor] = []
    var limit: Int?
    var offset: Int?

    /// `NSCompoundPredicate` of the old predicate and `right`, as CDQ's `merge_query` does.
    mutating func combine(_ right: Predicate, with combination: CDQCombination) {
        guard let left = predicate else {
            predicate = right
            chainCompound = nil
            return
        }
        switch (left, combination, chainCompound) {
        case (.and(let operands), .and, .and?): predicate = .and(operands + [right])
        case (.or(let operands), .or, .or?): predicate = .or(operands + [right])
        default:
            predicate = combination == .and ? .and([left, right]) : .or([left, right])
            chainCompound = combination
        }
    }
}

/// `.and` (and its alias `.where`) or `.or`.
enum CDQCombination: Equatable {
    case and, or
}

/// A key from a symbol or string, as a key path expression, with its spelling for messages.
struct CDQKey {
    var name: String
    var expression: Expression
}

/// The recursive-descent parser over a chain's tokens; one instance per parse.
struct CDQChainParser {
    let text: String
    let characters: [Character]
    let tokens: [CDQToken]
    let now: Date
    var index = 0
    var depth = 0

    init(text: String, tokens: [CDQToken], now: Date) {
        self.text = text
        self.characters = Array(text)
        self.tokens = tokens
        self.now = now
    }

    // MARK: Token helpers

    var current: CDQToken { tokens[index] }
    var previous: CDQToken? { index > 0 ? tokens[index - 1] : nil }
    var atEnd: Bool { current.kind == .end }

    @discardableResult
    mutating func advance() -> CDQToken {
        let token = tokens[index]
        if index < tokens.count - 1 { index += 1 }
        return token
    }

    func isPunctuation(_ symbol: String) -> Bool { current.kind == .punctuation(symbol) }

    var identifier: String? {
        if case .identifier(let name) = current.kind { return name }
        return nil
    }

    func source(of token: CDQToken) -> String {
        String(characters[token.start..<token.end])
    }

    func describe(_ token: CDQToken) -> String {
        token.kind == .end ? "the end of the query" : PredicateError.quoted(source(of: token))
    }

    func error(_ message: String, at offset: Int) -> PredicateError {
        PredicateError(text: text, offset: offset, message: message)
    }

    /// "expected …, found …", at the current token.
    func expectation(_ what: String) -> PredicateError {
        let context = previous.map { " after \(describe($0))" } ?? ""
        return error("expected \(what)\(context), found \(describe(current))", at: current.start)
    }

    /// Ruby lets a call leave out its parentheses (`.eq 'x'`); cdstore does not, and says so.
    mutating func expectPunctuation(_ symbol: String, _ what: String) throws(PredicateError) {
        guard isPunctuation(symbol) else {
            let failure = expectation(what)
            switch (symbol, current.kind) {
            case ("(", .string), ("(", .symbol), ("(", .integer), ("(", .double), ("(", .label):
                throw error(failure.message + "; write the arguments in parentheses", at: failure.offset)
            default:
                throw failure
            }
        }
        advance()
    }

    /// An optional empty `()` after a method that takes no arguments.
    mutating func skipEmptyParentheses(after method: String) throws(PredicateError) {
        guard isPunctuation("(") else { return }
        advance()
        guard isPunctuation(")") else { throw expectation("\")\": .\(method) takes no arguments") }
        advance()
    }

    mutating func enterNesting() throws(PredicateError) {
        depth += 1
        if depth > CDQParser.maximumNesting {
            throw error("the query is nested more than \(CDQParser.maximumNesting) levels deep", at: current.start)
        }
    }

    // MARK: The chain

    mutating func parseWhole() throws(PredicateError) -> FetchRequest {
        let entity = try parseEntity()
        var state = CDQQueryState()
        while !atEnd {
            if isPunctuation("[") {
                try parseIndex(into: &state)
                return try finish(entity, state, .objects, terminal: "[…]")
            }
            guard isPunctuation(".") else {
                throw expectation("a method call such as .where, .sort_by, .limit or .first")
            }
            advance()
            let methodToken = current
            guard let method = identifier else {
                throw expectation("a method name such as where, sort_by, limit or first")
            }
            advance()
            if try parseQueryMethod(method, at: methodToken, into: &state) { continue }
            return try parseTerminal(method, at: methodToken, entity: entity, state: &state)
        }
        return request(entity, state, .objects)
    }

    func request(
        _ entity: String, _ state: CDQQueryState, _ result: FetchResultKind,
        takesLast: Bool = false
    ) -> FetchRequest {
        FetchRequest(
            entity: entity, predicate: state.predicate, sortDescriptors: state.sortDescriptors,
            limit: state.limit, offset: state.offset, result: result, takesLast: takesLast)
    }

    /// A terminal runs the query in CDQ, so nothing may follow it.
    func finish(
        _ entity: String, _ state: CDQQueryState, _ result: FetchResultKind, terminal: String,
        takesLast: Bool = false
    ) throws(PredicateError) -> FetchRequest {
        guard atEnd else {
            throw error(
                "nothing can follow \(terminal), which runs the query; found \(describe(current))",
                at: current.start)
        }
        return request(entity, state, result, takesLast: takesLast)
    }

    /// `Author`, `cdq('Author')`, `cdq("Author")` or `cdq(Author)`.
    mutating func parseEntity() throws(PredicateError) -> String {
        let start = current
        switch current.kind {
        case .constant(let name):
            advance()
            if isPunctuation("::") {
                throw error("namespaced constants are not entity names; write the entity's name", at: current.start)
            }
            return name
        case .identifier("cdq"):
            advance()
            try expectPunctuation("(", "\"(\"")
            let argument = current
            let entity: String
            switch argument.kind {
            case .string(let name): entity = name.value
            case .constant(let name): entity = name
            case .symbol(let name):
                let attribute = PredicateError.quoted(name)
                throw error(
                    "cdq(:…) starts a condition on the attribute \(attribute), not a query; "
                        + "name the entity with a string or a class: cdq('Entity') or Entity", at: argument.start)
            default:
                throw expectation("an entity name such as 'Author' or Author")
            }
            if entity.isEmpty { throw error("the entity name is empty", at: argument.start) }
            advance()
            try expectPunctuation(")", "\")\" to close cdq(")
            return entity
        case .end:
            throw error("the query is empty; expected an entity name such as Author or cdq('Author')", at: start.start)
        default:
            throw error(
                "expected an entity name such as Author or cdq('Author'), found \(describe(start))",
                at: start.start)
        }
    }

    /// The methods that return another query. Returns false when `method` is not one of them.
    mutating func parseQueryMethod(
        _ method: String, at methodToken: CDQToken,
        into state: inout CDQQueryState
    ) throws(PredicateError) -> Bool {
        switch method {
        case "where", "and":
            try parseCondition(.and, method: method, at: methodToken, into: &state)
        case "or":
            try parseCondition(.or, method: method, at: methodToken, into: &state)
        case "sort_by":
            state.sortDescriptors.append(try parseSortArguments())
            state.savedKey = nil
        case "limit":
            let value = try parseCountArgument(of: method)
            state.limit = value == 0 ? nil : value
            state.savedKey = nil
        case "offset":
            state.offset = try parseCountArgument(of: method)
            state.savedKey = nil
        case "all":
            try skipEmptyParentheses(after: method)
        default:
            return false
        }
        return true
    }

    /// `.first`, `.count`, `.sum(:x)`, … (`motion/cdq/targeted_query.rb`).
    mutating func parseTerminal(
        _ method: String, at methodToken: CDQToken, entity: String,
        state: inout CDQQueryState
    ) throws(PredicateError) -> FetchRequest {
        let terminal = "." + method
        switch method {
        case "first":
            let count = try parseOptionalCount(of: method) ?? 1
            state.limit = state.limit.map { min($0, count) } ?? count
            return try finish(entity, state, .objects, terminal: terminal)
        case "last":
            if state.limit != nil || state.offset != nil {
                throw error(
                    ".last counts back from the end of the whole result, so it cannot follow "
                        + ".limit, .offset or [ ]", at: methodToken.start)
            }
            state.limit = try parseOptionalCount(of: method) ?? 1
            return try finish(entity, state, .objects, terminal: terminal, takesLast: true)
        case "count", "length", "size":
            try skipEmptyParentheses(after: method)
            return try finish(entity, state, .count, terminal: terminal)
        case "array", "to_a":
            try skipEmptyParentheses(after: method)
            return try finish(entity, state, .objects, terminal: terminal)
        case _ where CDQParser.aggregateMethods[method] != nil:
            try expectPunctuation("(", "\"(\" and the attribute to \(method)")
            let key = try parseKey(for: "." + method)
            try expectPunctuation(")", "\")\" to close .\(method)(")
            let function = CDQParser.aggregateMethods[method]!
            return try finish(entity, state, .aggregate(function, keyPath: key.name), terminal: terminal)
        case "calculate":
            let result = try parseCalculateArguments()
            return try finish(entity, state, result, terminal: terminal)
        case _ where CDQParser.writingMethods.contains(method):
            throw error(".\(method) changes data; cdstore only reads stores", at: methodToken.start)
        case "scope":
            throw error(
                ".scope defines a named scope, which lives in app code; write the scope's conditions "
                    + "into the chain instead", at: methodToken.start)
        case _ where CDQParser.blockMethods.contains(method):
            throw error(
                ".\(method) takes a Ruby block, which cannot be evaluated; cdstore prints the objects "
                    + "themselves (end the chain with .array or nothing)", at: methodToken.start)
        default:
            throw error(
                "unknown query method .\(method); expected where, and, or, sort_by, limit, offset, all, "
                    + "first, last, count, sum, average, min, max, calculate, array or to_a "
                    + "(named scopes live in app code and cannot be used here)", at: methodToken.start)
        }
    }

    /// `[index]` or `[index, length]`: CDQ's `offset(index).first` / `offset(index).limit(length)`.
    mutating func parseIndex(into state: inout CDQQueryState) throws(PredicateError) {
        advance()
        let index = try parseNonNegativeInteger("an index")
        state.offset = index
        state.limit = 1
        if isPunctuation(",") {
            advance()
            state.limit = try parseNonNegativeInteger("a length")
        }
        try expectPunctuation("]", "\"]\" to close the index")
    }

    mutating func parseNonNegativeInteger(_ what: String) throws(PredicateError) -> Int {
        guard case .integer(let value) = current.kind else { throw expectation("\(what) (an integer)") }
        guard value >= 0, let result = Int(exactly: value) else {
            throw error("\(what) cannot be negative", at: current.start)
        }
        advance()
        return result
    }

    /// `limit(n)`/`offset(n)`: a non-negative integer, or nil for none.
    mutating func parseCountArgument(of method: String) throws(PredicateError) -> Int? {
        try expectPunctuation("(", "\"(\" and a number")
        var value: Int?
        if case .identifier("nil") = current.kind {
            advance()
        } else {
            value = try parseNonNegativeInteger("a number of objects")
        }
        try expectPunctuation(")", "\")\" to close .\(method)(")
        return value
    }

    /// `first`, `first(n)`: n is at least 1.
    mutating func parseOptionalCount(of method: String) throws(PredicateError) -> Int? {
        guard isPunctuation("(") else { return nil }
        advance()
        if isPunctuation(")") {
            advance()
            return nil
        }
        let countToken = current
        let count = try parseNonNegativeInteger("a number of objects")
        if count == 0 { throw error(".\(method) needs at least one object", at: countToken.start) }
        try expectPunctuation(")", "\")\" to close .\(method)(")
        return count
    }

    /// `calculate(:sum, :fee)`: CDQ turns the symbol into the function `sum:`.
    mutating func parseCalculateArguments() throws(PredicateError) -> FetchResultKind {
        try expectPunctuation("(", "\"(\" and a function such as :sum")
        let functionToken = current
        guard case .symbol(let name) = current.kind else {
            throw expectation("a function such as :sum, :average, :min, :max or :count")
        }
        guard let function = AggregateFunction(rawValue: name) else {
            throw error(
                "unknown function \(PredicateError.quoted(name)); "
                    + "expected :sum, :average, :min, :max or :count",
                at: functionToken.start)
        }
        advance()
        try expectPunctuation(",", "\",\" and the attribute to calculate over")
        let key = try parseKey(for: ".calculate")
        try expectPunctuation(")", "\")\" to close .calculate(")
        return .aggregate(function, keyPath: key.name)
    }

    // MARK: Sorting

    /// `sort_by(key)`, `sort_by(key, :desc)` (the older positional order) or
    /// `sort_by(key, order: :descending, case_insensitive: true)` (`motion/cdq/query.rb`).
    /// CDQ's case-insensitive sort uses `localizedCaseInsensitiveCompare:`.
    mutating func parseSortArguments() throws(PredicateError) -> CDModel.SortDescriptor {
        try expectPunctuation("(", "\"(\" and a key")
        let key = try parseKey(for: ".sort_by")
        var descriptor = CDModel.SortDescriptor(key: key.name)
        if isPunctuation(",") {
            advance()
            switch current.kind {
            case .symbol where tokens[index + 1].kind != .punctuation("=>"), .string:
                descriptor.ascending = try parseSortOrder()
            default:
                let braced = isPunctuation("{")
                if braced { advance() }
                try parseSortOptions(into: &descriptor)
                if braced { try expectPunctuation("}", "\"}\" to close the options") }
            }
        }
        try expectPunctuation(")", "\")\" to close .sort_by(")
        return descriptor
    }

    /// CDQ reads any order whose first four letters are `desc` as descending and everything else
    /// as ascending; here anything that is neither `asc…` nor `desc…` is an error.
    mutating func parseSortOrder() throws(PredicateError) -> Bool {
        let token = current
        let order: String
        switch token.kind {
        case .symbol(let name): order = name
        case .string(let string): order = string.value
        default: throw expectation("an order such as :ascending or :descending")
        }
        advance()
        let lowercased = order.lowercased()
        if lowercased.hasPrefix("desc") { return false }
        if lowercased.hasPrefix("asc") { return true }
        throw error(
            "unknown sort order \(PredicateError.quoted(order)); expected :ascending or :descending",
            at: token.start)
    }

    mutating func parseSortOptions(into descriptor: inout CDModel.SortDescriptor) throws(PredicateError) {
        while true {
            let keyToken = current
            let option: String
            switch current.kind {
            case .label(let name): option = name; advance()
            case .symbol(let name):
                option = name
                advance()
                try expectPunctuation("=>", "\"=>\"")
            default:
                throw expectation("a sort option: order: or case_insensitive:")
            }
            switch option {
            case "order":
                descriptor.ascending = try parseSortOrder()
            case "case_insensitive":
                let valueToken = current
                switch current.kind {
                case .identifier("true"): descriptor.comparison = .localizedCaseInsensitiveCompare
                case .identifier("false"), .identifier("nil"): descriptor.comparison = .compare
                default: throw error("case_insensitive: takes true or false", at: valueToken.start)
                }
                advance()
            default:
                throw error(
                    "unknown sort option \(PredicateError.quoted(option)); "
                        + "expected order: or case_insensitive:", at: keyToken.start)
            }
            guard isPunctuation(",") else { return }
            advance()
        }
    }

    // MARK: Conditions

    /// A symbol or string naming an attribute or key path (`:name`, `'author.name'`).
    mutating func parseKey(for method: String) throws(PredicateError) -> CDQKey {
        let token = current
        let name: String
        switch token.kind {
        case .symbol(let symbol): name = symbol
        case .string(let string): name = string.value
        default: throw expectation("a key such as :name for \(method)")
        }
        advance()
        return CDQKey(name: name, expression: .keyPath(try keyPathComponents(name, at: token.start)))
    }

    func keyPathComponents(_ name: String, at offset: Int) throws(PredicateError) -> [KeyPathComponent] {
        guard let components = KeyPathComponent.components(of: name) else {
            throw error("\(PredicateError.quoted(name)) is not a key path such as name or author.name", at: offset)
        }
        return components
    }

    /// What follows `.where`, `.and` or `.or`: its argument, if any, and the comparison after a key.
    mutating func parseCondition(
        _ combination: CDQCombination, method: String, at methodToken: CDQToken,
        into state: inout CDQQueryState
    ) throws(PredicateError) {
        guard isPunctuation("("), tokens[index + 1].kind != .punctuation(")") else {
            if isPunctuation("(") { advance(); advance() }
            guard let key = state.savedKey else {
                throw error(
                    ".\(method) without an argument repeats the key of the comparison just before it, "
                        + "and there is none here (as in CDQ, a hash, a format string, a cdq(…) group, "
                        + ".sort_by, .limit and .offset leave no key); write .\(method)(:key)",
                    at: methodToken.start)
            }
            combine(try parseComparison(on: key), combination, key: key, into: &state)
            return
        }
        advance()
        let argument = current
        switch argument.kind {
        case .symbol where tokens[index + 1].kind != .punctuation("=>"):
            let key = try parseKey(for: "." + method)
            try expectPunctuation(")", "\")\": the comparison follows the key, as in .\(method)(:key).eq(1)")
            combine(try parseComparison(on: key), combination, key: key, into: &state)
        case .symbol, .label, .punctuation("{"):
            let predicate = try parseHashCondition()
            try expectPunctuation(")", "\")\" to close .\(method)(")
            state.combine(predicate, with: combination)
            state.savedKey = nil
        case .string(let format):
            advance()
            let predicate = try parseFormatCondition(format, method: method)
            state.combine(predicate, with: combination)
            state.savedKey = nil
        case .identifier("cdq"):
            let nested = try parseNestedQuery()
            try expectPunctuation(")", "\")\" to close .\(method)(")
            if let predicate = nested.predicate { state.combine(predicate, with: combination) }
            state.limit = nested.limit ?? state.limit
            state.offset = nested.offset ?? state.offset
            state.sortDescriptors += nested.sortDescriptors
            state.savedKey = nil
        default:
            throw expectation(
                "a key such as :name, a hash such as name: 'x', a format string "
                    + "or cdq(:key) with a comparison")
        }
    }

    /// Adds a comparison made on `key` and remembers the key, as CDQ's `make_scope` does.
    func combine(
        _ comparison: Predicate, _ combination: CDQCombination, key: CDQKey,
        into state: inout CDQQueryState
    ) {
        state.combine(comparison, with: combination)
        state.savedKey = key
    }

    /// `.eq(value)`, `.gt(value, options)`, `.between(min, max)` on `key`.
    mutating func parseComparison(on key: CDQKey) throws(PredicateError) -> Predicate {
        guard isPunctuation(".") else {
            throw expectation("a comparison such as .eq(…), .gt(…) or .contains(…) on :\(key.name)")
        }
        advance()
        let methodToken = current
        guard let method = identifier else { throw expectation("a comparison such as eq, gt or contains") }
        advance()
        if method == "between" {
            try expectPunctuation("(", "\"(\" and two values")
            let low = try parseValue()
            try expectPunctuation(",", "\",\" and the upper bound: .between(min, max)")
            let high = try parseValue()
            try expectPunctuation(")", "\")\" to close .between(")
            return .comparison(Comparison(key.expression, .between, .aggregate([low, high])))
        }
        guard let op = CDQParser.comparisonMethods[method] else {
            throw error(
                "unknown comparison .\(method) on :\(key.name); expected eq, ne, lt, le, gt, ge, contains, "
                    + "matches, in, begins_with, ends_with or between (or an alias such as equal, "
                    + "not_equal, less_than, greater_than_or_equal, include)", at: methodToken.start)
        }
        try expectPunctuation("(", "\"(\" and a value")
        let value = try parseValue(allowingArray: op == .in)
        var options: ComparisonOptions = []
        if isPunctuation(",") {
            advance()
            options = try parseComparisonOptions()
        }
        try expectPunctuation(")", "\")\" to close .\(method)(")
        return .comparison(Comparison(key.expression, op, value, options: options))
    }

    /// `where(name: 'x', count: 15)`, `where(:name => 'x')`, `where({name: 'x'})`: ANDed equalities,
    /// each a nested `.and(key).eq(value)` in CDQ.
    mutating func parseHashCondition() throws(PredicateError) -> Predicate {
        let braced = isPunctuation("{")
        if braced { advance() }
        var equalities: [Predicate] = []
        while true {
            let keyToken = current
            let name: String
            switch current.kind {
            case .label(let label):
                name = label
                advance()
            case .symbol(let symbol):
                name = symbol
                advance()
                try expectPunctuation("=>", "\"=>\"")
            default:
                throw expectation("a key such as name: or :name =>")
            }
            let key = Expression.keyPath(try keyPathComponents(name, at: keyToken.start))
            equalities.append(.comparison(Comparison(key, .equal, try parseValue())))
            guard isPunctuation(",") else { break }
            advance()
            if isPunctuation(braced ? "}" : ")") { break }
        }
        if braced { try expectPunctuation("}", "\"}\" to close the hash") }
        return equalities.count == 1 ? equalities[0] : .and(equalities)
    }

    /// `where("name LIKE %@", '*kesp*')`: the format string goes to ``PredicateParser`` with the
    /// Ruby values, typed as written; an error in the format points into the chain.
    mutating func parseFormatCondition(_ format: CDQString, method: String) throws(PredicateError) -> Predicate {
        var arguments: [Expression] = []
        while isPunctuation(",") {
            advance()
            arguments.append(try parseValue(allowingArray: true))
        }
        try expectPunctuation(")", "\",\" and a value, or \")\" to close .\(method)(")
        do {
            return try PredicateParser.parse(format.value, typedArguments: arguments)
        } catch {
            var message = "in the format string: " + error.message
            if error.message.hasPrefix("too many arguments"),
                format.value.contains("'%@'")
                    || format.value.contains("\"%@\"")
            {
                message += " (a quoted '%@' is a string, not a placeholder: write %@ without quotes)"
            }
            throw self.error(message, at: format.sourceOffset(ofCharacter: error.offset))
        }
    }

    /// `cdq(:key).comparison(…)` followed by query calls, inside a `where`/`and`/`or`: a
    /// parenthesised condition of its own (CDQ builds a separate `CDQQuery` and merges it).
    mutating func parseNestedQuery() throws(PredicateError) -> CDQQueryState {
        try enterNesting()
        defer { depth -= 1 }
        advance()
        try expectPunctuation("(", "\"(\"")
        guard case .symbol = current.kind else {
            throw expectation("a key such as :name: inside a condition, cdq(:key) starts a comparison")
        }
        let key = try parseKey(for: "cdq")
        try expectPunctuation(")", "\")\" to close cdq(")
        var state = CDQQueryState()
        combine(try parseComparison(on: key), .and, key: key, into: &state)
        while isPunctuation(".") {
            advance()
            let methodToken = current
            guard let method = identifier else { throw expectation("a method name such as and, or or sort_by") }
            advance()
            guard try parseQueryMethod(method, at: methodToken, into: &state) else {
                throw error(
                    ".\(method) cannot be used inside a condition; expected and, or, where, sort_by, "
                        + "limit or offset", at: methodToken.start)
            }
        }
        return state
    }
}
