import CDModel
import CDPredicate
import Foundation

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
}
