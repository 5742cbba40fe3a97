import CDModel
import CDPredicate
import Foundation

/// Conditions: `where`/`and`/`or` with a key and a comparison, a hash, a format string or a group.
extension CDQChainParser {
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
