import Foundation

/// Parses NSPredicate format strings into `Predicate` trees.
///
/// Grammar (keywords are case-insensitive; `#word` is always a key):
///
///     predicate  := and (("OR" | "||") and)*
///     and        := not (("AND" | "&&") not)*
///     not        := ("NOT" | "!") not | "(" predicate ")" | "TRUEPREDICATE" | "FALSEPREDICATE" | comparison
///     comparison := ["ANY" | "SOME" | "ALL" | "NONE"] expression operator ["[" options "]"] expression
///     expression := literal | "{" [expression ("," expression)*] "}" | "SELF" path* | key path* | "$"name path*
///                 | "SUBQUERY(" expression "," "$"name "," predicate ")" path* | "CAST(" expression "," string ")"
///                 | "%@" | "%K" path* | "%d" | "%i" | "%ld" | "%f" …
///     path       := "." (key | "@count" | "@sum" | "@avg" | "@min" | "@max")
///
/// Arguments are strings (they come from the command line) and fill the `%` placeholders in order:
/// * `%K`: a key path (`author.name`, `books.@count`).
/// * `%d`, `%i`, `%u`, `%ld`, `%lld`, `%lu`: must be a decimal integer. `%f`, `%lf`: must be a number.
/// * `%@`: typed by its spelling, like a literal in the format string would be: `nil`/`NULL` →
///   null; `true`/`false`/`YES`/`NO` (any case) → Bool; a decimal integer (optional sign) that fits
///   64 bits → integer; a decimal number such as `1.5`, `-2e3` → double; anything else → string.
///   A string that looks like a number has to be written as a quoted literal in the format; a date
///   is `CAST(%@, "NSDate")` with an ISO-8601 argument. `%@` is always one value, so `IN %@` tests
///   against that value; a list is written `IN {%@, %@}`.
public enum PredicateParser {
    /// Deeper nesting (parentheses, NOT, aggregates, subqueries) is an error instead of a stack overflow.
    package static let maximumNesting = 100

    /// Parses `text`, filling its placeholders from `arguments`. Every failure, including too few or
    /// too many arguments, is a `PredicateError` pointing into `text`.
    ///
    /// With `checksPatterns`, a `MATCHES` pattern that is not a valid regular expression is a
    /// parse error at its position. NSPredicate itself takes any pattern and fails only when it
    /// evaluates one, so the default parses as it does; the command line checks, because SQLite
    /// would otherwise report the bad pattern on the store with no position.
    public static func parse(_ text: String, arguments: [String] = [], checksPatterns: Bool = false) throws(PredicateError) -> Predicate {
        var parser = try Parser(text: text, arguments: arguments.map(PlaceholderArgument.text))
        parser.checksPatterns = checksPatterns
        return try parser.parseWhole()
    }

    /// Parses a predicate a model holds (a validation rule, a fetch request's or a partial
    /// index's predicate, a derived attribute's filter), as `-[NSPredicate predicateFormat]` and
    /// model files write them: like a query, plus function expressions such as `count:(pages)`.
    public static func parseModelText(_ text: String) throws(PredicateError) -> Predicate {
        var parser = try Parser(text: text, arguments: [], allowsFunctions: true)
        return try parser.parseWhole()
    }

    /// Parses an expression a model holds on its own: a derived attribute's derivation
    /// (`count:(pages)`, `author.name`) or an indexed expression (`SELF`).
    package static func parseModelExpression(_ text: String) throws(PredicateError) -> Expression {
        var parser = try Parser(text: text, arguments: [], allowsFunctions: true)
        return try parser.parseWholeExpression()
    }

    /// Parses `text`, filling its placeholders with values that already have a type, such as the
    /// Ruby literals after a CDQ format string (`where("name LIKE %@", '*kesp*')`). `%@` takes the
    /// expression as it is (a constant, or an aggregate for a Ruby array); `%K` needs a string
    /// constant, `%d` and friends an integer, `%f` a number.
    package static func parse(_ text: String, typedArguments: [Expression]) throws(PredicateError) -> Predicate {
        var parser = try Parser(text: text, arguments: typedArguments.map(PlaceholderArgument.typed))
        return try parser.parseWhole()
    }

    /// How a `%@` argument is typed (see the type's documentation).
    package static func value(ofArgument argument: String) -> Value {
        switch argument.uppercased() {
        case "NIL", "NULL": return .null
        case "TRUE", "YES": return .bool(true)
        case "FALSE", "NO": return .bool(false)
        default: break
        }
        if let integer = Int64(argument) { return .integer(integer) }
        let numberCharacters = Set("0123456789+-.eE")
        if argument.first.map({ $0.isNumber || $0 == "-" || $0 == "+" || $0 == "." }) == true,
            argument.allSatisfy(numberCharacters.contains), let double = Double(argument), double.isFinite
        {
            return .double(double)
        }
        return .string(argument)
    }

    /// Words that are keywords somewhere in the language; as keys they need a `#`.
    package static let reservedWords: Set<String> = [
        "AND", "OR", "NOT", "IN", "ALL", "ANY", "SOME", "NONE", "LIKE", "MATCHES", "CONTAINS", "BEGINSWITH",
        "ENDSWITH", "BETWEEN", "NULL", "NIL", "SELF", "TRUE", "FALSE", "YES", "NO", "FIRST", "LAST", "SIZE",
        "ANYKEY", "CASEINSENSITIVE", "CI", "SUBQUERY", "FETCH", "CAST", "FUNCTION", "TRUEPREDICATE", "FALSEPREDICATE",
    ]
}

/// What fills one placeholder: command-line text, typed by the placeholder, or a typed expression.
private enum PlaceholderArgument {
    case text(String)
    case typed(Expression)
}

/// The recursive-descent parser over the token list; one instance per parse.
private struct Parser: PredicateTokenWalker {
    let text: String
    let characters: [Character]
    let tokens: [PredicateToken]
    let arguments: [PlaceholderArgument]
    /// Whether `name(…)` function expressions are read (model texts) or refused (queries).
    let allowsFunctions: Bool
    /// Whether a constant `MATCHES` pattern must compile (see ``PredicateParser/parse(_:arguments:checksPatterns:)``).
    var checksPatterns = false
    var index = 0
    var nextArgument = 0
    var depth = 0

    init(text: String, arguments: [PlaceholderArgument], allowsFunctions: Bool = false) throws(PredicateError) {
        self.text = text
        self.characters = Array(text)
        self.tokens = try PredicateTokenizer.tokenize(text)
        self.arguments = arguments
        self.allowsFunctions = allowsFunctions
    }

    // MARK: Token helpers

    func keyword(_ token: PredicateToken) -> String? {
        if case .word(let word, escaped: false) = token.kind { return word.uppercased() }
        return nil
    }

    func isKeyword(_ names: String...) -> Bool { keyword(current).map(names.contains) ?? false }

    func isSymbol(_ symbols: String...) -> Bool {
        if case .symbol(let symbol) = current.kind { return symbols.contains(symbol) }
        return false
    }

    func source(from start: Int, to end: Int) -> String { String(characters[start..<end]) }

    /// How an error message names a token: its source text, or "the end of the predicate".
    func describe(_ token: PredicateToken) -> String {
        token.kind == .end ? "the end of the predicate" : PredicateError.quoted(source(from: token.start, to: token.end))
    }

    func error(_ message: String, at offset: Int) -> PredicateError {
        PredicateError(text: text, offset: offset, message: message)
    }

    func expectation(_ what: String, after: String? = nil) -> PredicateError {
        let context = after.map { " after " + PredicateError.quoted($0) } ?? previous.map { " after \(describe($0))" } ?? ""
        return error("expected \(what)\(context), found \(describe(current))", at: current.start)
    }

    mutating func expectSymbol(_ symbol: String, _ what: String) throws(PredicateError) {
        guard isSymbol(symbol) else { throw expectation(what) }
        advance()
    }

    mutating func enterNesting() throws(PredicateError) {
        depth += 1
        if depth > PredicateParser.maximumNesting {
            throw error(
                "the predicate is nested more than \(PredicateParser.maximumNesting) levels deep",
                at: current.start)
        }
    }

    // MARK: Predicates

    mutating func parseWhole() throws(PredicateError) -> Predicate {
        if current.kind == .end { throw error("the predicate is empty", at: 0) }
        let predicate = try parseOr()
        if isSymbol(")") { throw error("unbalanced \")\": there is no matching \"(\"", at: current.start) }
        if current.kind != .end { throw expectation("AND, OR or the end of the predicate") }
        if nextArgument < arguments.count {
            throw error(
                "too many arguments: the format uses \(nextArgument) but \(arguments.count) were given",
                at: characters.count)
        }
        return predicate
    }

    mutating func parseWholeExpression() throws(PredicateError) -> Expression {
        if current.kind == .end { throw error("the expression is empty", at: 0) }
        let expression = try parseExpression()
        if current.kind != .end { throw expectation("the end of the expression") }
        return expression
    }

    mutating func parseOr() throws(PredicateError) -> Predicate {
        try enterNesting()
        defer { depth -= 1 }
        var operands = [try parseAnd()]
        while isKeyword("OR") || isSymbol("||") {
            advance()
            operands.append(try parseAnd())
        }
        return operands.count == 1 ? operands[0] : .or(operands)
    }

    mutating func parseAnd() throws(PredicateError) -> Predicate {
        var operands = [try parseNot()]
        while isKeyword("AND") || isSymbol("&&") {
            advance()
            operands.append(try parseNot())
        }
        return operands.count == 1 ? operands[0] : .and(operands)
    }

    mutating func parseNot() throws(PredicateError) -> Predicate {
        if isKeyword("NOT") || isSymbol("!") {
            advance()
            try enterNesting()
            defer { depth -= 1 }
            return .not(try parseNot())
        }
        if isSymbol("(") {
            let open = advance()
            let inner = try parseOr()
            guard isSymbol(")") else {
                throw expectation("\")\" to close the \"(\" at character \(open.start)")
            }
            advance()
            return inner
        }
        if isKeyword("TRUEPREDICATE") { advance(); return .constant(true) }
        if isKeyword("FALSEPREDICATE") { advance(); return .constant(false) }
        return .comparison(try parseComparison())
    }

    mutating func parseComparison() throws(PredicateError) -> Comparison {
        var quantifier = ComparisonQuantifier.direct
        switch keyword(current) {
        case "ANY", "SOME": quantifier = .any
        case "ALL": quantifier = .all
        case "NONE": quantifier = .none
        default: break
        }
        if quantifier != .direct { advance() }

        let leftStart = current.start
        let left = try parseExpression()
        let leftText = source(from: leftStart, to: previous?.end ?? leftStart)
        guard let op = comparisonOperator() else {
            throw expectation("a comparison operator", after: leftText)
        }
        let operatorStart = advance().start
        let options = try parseOptions()
        let rightStart = current.start
        let right = try parseExpression(after: source(from: operatorStart, to: previous?.end ?? operatorStart))
        if op == .between, case .aggregate(let bounds) = right, bounds.count != 2 {
            throw error("BETWEEN needs exactly two values, {low, high}; found \(bounds.count)", at: rightStart)
        }
        if checksPatterns, op == .matches, case .constant(.string(let pattern)) = right {
            do {
                _ = try StringMatching.matches("", pattern: pattern, flags: 0)
            } catch {
                throw self.error("MATCHES takes an ICU regular expression, and \(PredicateError.quoted(pattern)) is not a valid one", at: rightStart)
            }
        }
        return Comparison(left, op, right, options: options, quantifier: quantifier)
    }

    func comparisonOperator() -> ComparisonOperator? {
        switch current.kind {
        case .symbol("=="), .symbol("="): return .equal
        case .symbol("!="), .symbol("<>"): return .notEqual
        case .symbol("<"): return .less
        case .symbol("<="), .symbol("=<"): return .lessOrEqual
        case .symbol(">"): return .greater
        case .symbol(">="), .symbol("=>"): return .greaterOrEqual
        case .word(let word, escaped: false):
            return ComparisonOperator.allCases.first { $0.rawValue == word.uppercased() && $0.rawValue.first!.isLetter }
        default: return nil
        }
    }

    /// `[c]`, `[d]`, `[n]`, `[l]` and combinations such as `[cd]`; letters are case-insensitive.
    mutating func parseOptions() throws(PredicateError) -> ComparisonOptions {
        guard isSymbol("[") else { return [] }
        advance()
        guard case .word(let letters, escaped: false) = current.kind else {
            throw expectation("comparison options such as c, d, n or l")
        }
        var options: ComparisonOptions = []
        for (offset, letter) in letters.enumerated() {
            let lowercased = letter.lowercased()
            guard let option = ComparisonOptions.letters.first(where: { String($0.0) == lowercased })?.1 else {
                throw error("unknown comparison option \"\(letter)\"; expected c, d, n or l", at: current.start + offset)
            }
            options.insert(option)
        }
        advance()
        try expectSymbol("]", "\"]\" to close the comparison options")
        return options
    }

    // MARK: Expressions

    /// `after` names what precedes the expression in an error message (default: the previous token).
    mutating func parseExpression(after: String? = nil) throws(PredicateError) -> Expression {
        let token = current
        switch token.kind {
        case .integer(let value): advance(); return .constant(.integer(value))
        case .double(let value): advance(); return .constant(.double(value))
        case .string(let value): advance(); return .constant(.string(value))
        case .variable(let name): advance(); return try parsePath(on: .variable(name))
        case .collectionOperator: return try parsePath(on: .evaluatedObject, startingWithComponent: true)
        case .placeholder(let spec): advance(); return try substitute(spec, at: token)
        case .word(let word, escaped: true):
            advance()
            return try parsePath(on: .keyPath([.key(word)]))
        case .word(let word, escaped: false):
            return try parseWordExpression(word)
        case .symbol("{"):
            return try parseAggregate()
        case .symbol("+"), .symbol("-"), .symbol("*"), .symbol("/"), .symbol("**"):
            throw error("arithmetic expressions are not supported", at: token.start)
        default:
            throw expectation("a value or key path", after: after)
        }
    }

    mutating func parseWordExpression(_ word: String) throws(PredicateError) -> Expression {
        let token = current
        switch word.uppercased() {
        case "NIL", "NULL": advance(); return .constant(.null)
        case "TRUE", "YES": advance(); return .constant(.bool(true))
        case "FALSE", "NO": advance(); return .constant(.bool(false))
        case "SELF": advance(); return try parsePath(on: .evaluatedObject)
        case "SUBQUERY": return try parsePath(on: try parseSubquery())
        case "CAST": return try parseCast()
        case "FUNCTION":
            throw error("FUNCTION(…) expressions are not supported", at: token.start)
        case "FIRST", "LAST", "SIZE":
            throw error(
                "index expressions (\(word.uppercased())) are not supported; write #\(word) for a key named \(word)",
                at: token.start)
        case let upper where PredicateParser.reservedWords.contains(upper):
            throw error(
                "expected a value or key path, found the keyword \(upper); write #\(word) for a key named \(word)",
                at: token.start)
        default:
            advance()
            if isSymbol("(") {
                guard allowsFunctions else {
                    throw error("function calls such as \(word)(…) are not supported", at: token.start)
                }
                return try parsePath(on: try parseFunctionArguments(word))
            }
            return try parsePath(on: .keyPath([.key(word)]))
        }
    }

    /// Appends `.key` / `.@operator` steps to `base`; a path from SELF is a plain `keyPath`.
    mutating func parsePath(on base: Expression, startingWithComponent: Bool = false) throws(PredicateError) -> Expression {
        var components: [KeyPathComponent] = []
        var expectComponent = startingWithComponent
        while expectComponent || isSymbol(".") {
            if !expectComponent { advance() }
            expectComponent = false
            switch current.kind {
            case .word(let word, _):
                components.append(.key(word))
            case .collectionOperator(let name):
                guard let op = CollectionOperator(rawValue: name) else {
                    throw error(
                        "unknown collection operator @\(name); expected @count, @sum, @avg, @min or @max",
                        at: current.start)
                }
                components.append(.collectionOperator(op))
            default:
                throw expectation("a key or collection operator")
            }
            advance()
        }
        return Self.appending(components, to: base)
    }

    static func appending(_ components: [KeyPathComponent], to base: Expression) -> Expression {
        if components.isEmpty { return base }
        switch base {
        case .evaluatedObject: return .keyPath(components)
        case .keyPath(let head): return .keyPath(head + components)
        case .path(let root, let head): return .path(root, head + components)
        default: return .path(base, components)
        }
    }

    mutating func parseAggregate() throws(PredicateError) -> Expression {
        advance()
        try enterNesting()
        defer { depth -= 1 }
        var elements: [Expression] = []
        if isSymbol("}") {
            advance()
            return .aggregate(elements)
        }
        while true {
            elements.append(try parseExpression())
            if isSymbol("}") { advance(); return .aggregate(elements) }
            try expectSymbol(",", "\",\" or \"}\" in the aggregate")
        }
    }

    /// The arguments of `name(…)`, the current token being the `(`.
    mutating func parseFunctionArguments(_ name: String) throws(PredicateError) -> Expression {
        advance()
        try enterNesting()
        defer { depth -= 1 }
        var arguments: [Expression] = []
        if isSymbol(")") {
            advance()
            return .function(name, arguments)
        }
        while true {
            arguments.append(try parseExpression())
            if isSymbol(")") { advance(); return .function(name, arguments) }
            try expectSymbol(",", "\",\" or \")\" in the arguments of \(name)")
        }
    }

    mutating func parseSubquery() throws(PredicateError) -> Expression {
        advance()
        try enterNesting()
        defer { depth -= 1 }
        try expectSymbol("(", "\"(\" after SUBQUERY")
        let collection = try parseExpression()
        try expectSymbol(",", "\",\" after the SUBQUERY collection")
        guard case .variable(let variable) = current.kind else {
            throw expectation("a variable such as $x as the second SUBQUERY argument")
        }
        advance()
        try expectSymbol(",", "\",\" after the SUBQUERY variable")
        let predicate = try parseOr()
        try expectSymbol(")", "\")\" to close SUBQUERY")
        return .subquery(collection: collection, variable: variable, predicate: predicate)
    }

    /// `CAST(value, "Type")`. Casts to NSDate of a number (seconds since 2001, which is how
    /// NSPredicate prints dates) or of an ISO-8601 string become date constants.
    mutating func parseCast() throws(PredicateError) -> Expression {
        advance()
        try enterNesting()
        defer { depth -= 1 }
        try expectSymbol("(", "\"(\" after CAST")
        let valueStart = current.start
        let value = try parseExpression()
        try expectSymbol(",", "\",\" after the value to cast")
        guard case .string(let type) = current.kind else {
            throw expectation("a quoted type name such as \"NSDate\"")
        }
        advance()
        try expectSymbol(")", "\")\" to close CAST")
        guard type == "NSDate" else { return .cast(value, type: type) }
        switch value {
        case .constant(.integer(let seconds)):
            return .constant(.date(Date(timeIntervalSinceReferenceDate: Double(seconds))))
        case .constant(.double(let seconds)):
            return .constant(.date(Date(timeIntervalSinceReferenceDate: seconds)))
        case .constant(.string(let string)):
            guard let date = CoreDataDate(iso8601: string) else {
                throw error(
                    PredicateError.quoted(string)
                        + " is not an ISO-8601 date such as 2024-05-31 or 2024-05-31T12:00:00Z", at: valueStart)
            }
            return .constant(.date(date.date))
        case .constant(.date):
            return value
        default:
            return .cast(value, type: type)
        }
    }

    // MARK: Substitution

    mutating func substitute(_ spec: String, at token: PredicateToken) throws(PredicateError) -> Expression {
        guard nextArgument < arguments.count else {
            throw error(
                "too few arguments: %\(spec) needs argument \(nextArgument + 1) but \(arguments.count) were given",
                at: token.start)
        }
        let argument: String
        switch arguments[nextArgument] {
        case .text(let text): argument = text
        case .typed(let expression):
            nextArgument += 1
            return try substitute(spec, typed: expression, at: token)
        }
        nextArgument += 1
        switch spec {
        case "@":
            return .constant(PredicateParser.value(ofArgument: argument))
        case "K":
            return try parsePath(on: .keyPath(try keyPath(fromArgument: argument, at: token)))
        case "f", "lf":
            guard let value = Double(argument), value.isFinite else {
                throw error(
                    "argument \(nextArgument) for %\(spec) is not a number: \(PredicateError.quoted(argument))",
                    at: token.start)
            }
            return .constant(.double(value))
        default:
            guard let value = Int64(argument) else {
                throw error(
                    "argument \(nextArgument) for %\(spec) is not an integer: \(PredicateError.quoted(argument))",
                    at: token.start)
            }
            return .constant(.integer(value))
        }
    }

    /// `substitute` for an argument that already has a type; `nextArgument` counts it already.
    mutating func substitute(
        _ spec: String, typed expression: Expression,
        at token: PredicateToken
    ) throws(PredicateError) -> Expression {
        func mismatch(_ wanted: String) -> PredicateError {
            error("argument \(nextArgument) for %\(spec) must be \(wanted), found \(expression)", at: token.start)
        }
        switch spec {
        case "@":
            return expression
        case "K":
            guard case .constant(.string(let path)) = expression else { throw mismatch("a key path string") }
            return try parsePath(on: .keyPath(try keyPath(fromArgument: path, at: token)))
        case "f", "lf":
            switch expression {
            case .constant(.integer(let value)): return .constant(.double(Double(value)))
            case .constant(.double): return expression
            default: throw mismatch("a number")
            }
        default:
            guard case .constant(.integer) = expression else { throw mismatch("an integer") }
            return expression
        }
    }

    /// A `%K` argument: dot-separated keys and collection operators.
    func keyPath(fromArgument argument: String, at token: PredicateToken) throws(PredicateError) -> [KeyPathComponent] {
        guard let components = KeyPathComponent.components(of: argument) else {
            throw error("argument \(nextArgument) for %K is not a key path: \(PredicateError.quoted(argument))", at: token.start)
        }
        return components
    }
}

extension KeyPathComponent {
    /// The components of a key path written as text (`author.name`, `books.@count`): keys, and
    /// `@count`/`@sum`/… collection operators; nil when a part is neither. `%K` arguments and
    /// CDQ's symbols name key paths this way.
    public static func components(of text: String) -> [KeyPathComponent]? {
        var components: [KeyPathComponent] = []
        for part in text.split(separator: ".", omittingEmptySubsequences: false) {
            if part.first == "@", let op = CollectionOperator(rawValue: String(part.dropFirst())) {
                components.append(.collectionOperator(op))
            } else if let first = part.first, PredicateTokenizer.isWordStart(first), part.allSatisfy(PredicateTokenizer.isWordPart) {
                components.append(.key(String(part)))
            } else {
                return nil
            }
        }
        return components
    }
}
