import CDModel
import CDPredicate
import Foundation

/// The text of `cdstore query`: a CDQ chain (`Author.where(:name).eq('Shakespeare').first`) or the
/// keyword form
///
///     Entity [where PREDICATE] [sort by KEY [asc|desc] (, KEY [asc|desc])*] [limit N] [offset N]
///
/// where PREDICATE is an NSPredicate format string whose `%` placeholders take the command-line
/// arguments, and the keywords are case-insensitive. The clauses after the predicate may come in
/// any order, each at most once; `limit 0` means no limit, as an `NSFetchRequest`'s `fetchLimit`.
package enum QueryExpression {
    /// The two ways to write a query.
    package enum Syntax: Sendable, Equatable {
        /// A RubyMotion CDQ chain, parsed by ``CDQParser``.
        case cdq
        /// `Entity where PREDICATE sort by … limit … offset …`, or a bare entity name.
        case keywords
    }

    /// Which syntax `text` is written in: a CDQ chain starts with `cdq(` or has `.`, `[` or `(`
    /// right after its first name; anything else is the keyword form (whose errors then explain).
    package static func syntax(of text: String) -> Syntax {
        let characters = Array(text)
        var position = 0
        func skipWhitespace() {
            while position < characters.count, characters[position].isWhitespace { position += 1 }
        }
        skipWhitespace()
        let nameStart = position
        while position < characters.count, CDQTokenizer.isNamePart(characters[position]) { position += 1 }
        let name = String(characters[nameStart..<position])
        skipWhitespace()
        guard position < characters.count, !name.isEmpty else { return .keywords }
        return [".", "[", "(", ":"].contains(characters[position]) ? .cdq : .keywords
    }

    /// Parses either syntax. `arguments` fill the placeholders of the keyword form's predicate; a
    /// CDQ chain writes its values inline, so arguments with a chain are an error. `now` is the
    /// value of a chain's `Time.now`.
    package static func parse(
        _ text: String, arguments: [String] = [],
        now: Date = Date()
    ) throws(CDPredicate.PredicateError) -> FetchRequest {
        switch syntax(of: text) {
        case .cdq:
            guard arguments.isEmpty else {
                throw PredicateError(
                    text: text, offset: 0,
                    message: "a CDQ query writes its values inline, as in "
                        + ".where(\"name LIKE %@\", '*kesp*'); it takes no separate arguments")
            }
            return try CDQParser.parse(text, now: now)
        case .keywords:
            return try parseKeywordForm(text, arguments: arguments)
        }
    }

    /// Parses `Entity [where PREDICATE] [sort by …] [limit N] [offset N]`.
    package static func parseKeywordForm(_ text: String, arguments: [String] = []) throws(CDPredicate.PredicateError)
        -> FetchRequest
    {
        var parser = KeywordFormParser(text: text, tokens: try PredicateTokenizer.tokenize(text))
        return try parser.parse(arguments: arguments)
    }
}

/// The keyword form over ``PredicateTokenizer`` tokens of the whole text, so quoted strings in the
/// predicate are single tokens and a `limit` inside one is never taken for the clause.
private struct KeywordFormParser: PredicateTokenWalker {
    let text: String
    let characters: [Character]
    let tokens: [PredicateToken]
    var index = 0

    init(text: String, tokens: [PredicateToken]) {
        self.text = text
        self.characters = Array(text)
        self.tokens = tokens
    }

    func keyword(at position: Int) -> String? {
        if case .word(let word, escaped: false) = tokens[position].kind { return word.lowercased() }
        return nil
    }

    func describe(_ token: PredicateToken) -> String {
        token.kind == .end
            ? "the end of the query"
            : PredicateError.quoted(String(characters[token.start..<token.end]))
    }

    func error(_ message: String, at offset: Int) -> PredicateError {
        PredicateError(text: text, offset: offset, message: message)
    }

    func expectation(_ what: String) -> PredicateError {
        error("expected \(what), found \(describe(current))", at: current.start)
    }

    /// Whether a clause starts at token `position`: `sort by`, or `limit`/`offset` before a number.
    /// A key of the predicate never stands there (a key is followed by an operator).
    func clauseStarts(at position: Int) -> Bool {
        switch keyword(at: position) {
        case "sort": return keyword(at: position + 1) == "by"
        case "limit", "offset":
            if case .integer = tokens[position + 1].kind { return true }
            return false
        default: return false
        }
    }

    mutating func parse(arguments: [String]) throws(PredicateError) -> FetchRequest {
        guard case .word(let entity, escaped: false) = current.kind else {
            throw current.kind == .end
                ? error("the query is empty; expected an entity name such as Author", at: 0)
                : expectation("an entity name such as Author")
        }
        advance()
        var request = FetchRequest(entity: entity)
        if keyword(at: index) == "where" {
            let whereToken = advance()
            request.predicate = try parsePredicate(after: whereToken, arguments: arguments)
        } else if !arguments.isEmpty {
            throw error(
                "\(arguments.count) argument(s) given but the query has no predicate to use them",
                at: characters.count)
        }
        var seen: Set<String> = []
        while current.kind != .end {
            guard let clause = keyword(at: index), ["sort", "limit", "offset"].contains(clause) else {
                let what =
                    request.predicate == nil && seen.isEmpty
                    ? "WHERE, SORT BY, LIMIT or OFFSET"
                    : "SORT BY, LIMIT, OFFSET or the end of the query"
                throw expectation(what + " after \(describe(tokens[index - 1]))")
            }
            let clauseToken = advance()
            guard seen.insert(clause).inserted else {
                throw error("\(clause.uppercased()) is given twice", at: clauseToken.start)
            }
            switch clause {
            case "sort": request.sortDescriptors = try parseSortClause()
            case "limit":
                let limit = try parseCount()
                request.limit = limit == 0 ? nil : limit
            default: request.offset = try parseCount()
            }
        }
        return request
    }

    /// The predicate runs from after WHERE to the first clause outside parentheses and braces.
    mutating func parsePredicate(after whereToken: PredicateToken, arguments: [String]) throws(PredicateError)
        -> Predicate
    {
        let start = current.start
        var nesting = 0
        while current.kind != .end && !(nesting == 0 && clauseStarts(at: index)) {
            switch current.kind {
            case .symbol("("), .symbol("{"), .symbol("["): nesting += 1
            case .symbol(")"), .symbol("}"), .symbol("]"): nesting -= 1
            default: break
            }
            advance()
        }
        let end = index > 0 && current.start > start ? tokens[index - 1].end : start
        if start == end {
            throw error("expected a predicate after WHERE, found \(describe(current))", at: current.start)
        }
        let predicateText = String(characters[start..<end])
        do {
            return try PredicateParser.parse(predicateText, arguments: arguments)
        } catch {
            let offset = start + error.offset
            var message = error.message
            if let position = tokens.firstIndex(where: { $0.start == offset }),
                ["sort", "limit", "offset"].contains(keyword(at: position))
            {
                message += " (LIMIT and OFFSET take a number; SORT is followed by BY)"
            }
            throw self.error(message, at: offset)
        }
    }

    /// `KEY [asc|ascending|desc|descending] (, …)*`; KEY is a key path.
    mutating func parseSortClause() throws(PredicateError) -> [CDModel.SortDescriptor] {
        guard keyword(at: index) == "by" else { throw expectation("BY after SORT") }
        advance()
        var descriptors: [CDModel.SortDescriptor] = []
        while true {
            var descriptor = CDModel.SortDescriptor(key: try parseKeyPath())
            switch keyword(at: index) {
            case "asc", "ascending": advance()
            case "desc", "descending":
                advance()
                descriptor.ascending = false
            default: break
            }
            descriptors.append(descriptor)
            guard current.kind == .symbol(",") else { return descriptors }
            advance()
        }
    }

    mutating func parseKeyPath() throws(PredicateError) -> String {
        var parts: [String] = []
        while true {
            switch current.kind {
            case .word(let word, _): parts.append(word)
            case .collectionOperator(let name) where !parts.isEmpty: parts.append("@" + name)
            default: throw expectation("a key to sort by")
            }
            advance()
            guard current.kind == .symbol(".") else { return parts.joined(separator: ".") }
            advance()
        }
    }

    mutating func parseCount() throws(PredicateError) -> Int {
        guard case .integer(let value) = current.kind else { throw expectation("a number") }
        guard value >= 0, let count = Int(exactly: value) else {
            throw error("the number cannot be negative", at: current.start)
        }
        advance()
        return count
    }
}
