/// A lexical unit of a format string, with the Character range it came from.
package struct PredicateToken: Equatable {
    package enum Kind: Equatable {
        /// A bare word: a key, or a keyword when the parser expects one. `escaped` is true after `#`,
        /// which makes a reserved word an ordinary key.
        case word(String, escaped: Bool)
        case integer(Int64)
        case double(Double)
        case string(String)
        /// `$name`
        case variable(String)
        /// `@count` and friends, without the `@`.
        case collectionOperator(String)
        /// `%@`, `%K`, `%d`, … (the letters after `%`).
        case placeholder(String)
        /// Operators and punctuation: `==`, `(`, `,`, `&&`, `+`, …
        case symbol(String)
        case end
    }

    package var kind: Kind
    package var start: Int
    package var end: Int
}

/// Splits a format string into tokens. Keywords are not recognised here: the parser decides from
/// context whether a word is a key or a keyword.
package struct PredicateTokenizer: CursorTokenizer {
    package var cursor: CharacterCursor

    package init(_ text: String) {
        cursor = CharacterCursor(text)
    }

    package static func isEnd(_ token: PredicateToken) -> Bool { token.kind == .end }

    /// Two-character symbols first, so `<=` is not read as `<` then `=`.
    private static let symbols = [
        "==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||", "**",
        "=", "<", ">", "!", "(", ")", "{", "}", "[", "]", ",", ".",
        "+", "-", "*", "/",
    ]

    package mutating func next() throws(PredicateError) -> PredicateToken {
        cursor.skipWhitespace()
        let start = position
        func token(_ kind: PredicateToken.Kind) -> PredicateToken {
            PredicateToken(kind: kind, start: start, end: position)
        }
        guard let c = peek() else { return token(.end) }

        if c.isNumber && c.isASCII || (c == "-" && (peek(1).map { $0.isASCII && $0.isNumber } ?? false)) {
            return token(try number())
        }
        if c == "\"" || c == "'" {
            return token(.string(try quotedString()))
        }
        if Self.isWordStart(c) {
            var name = word()
            // `count:(pages)`: NSPredicate spells a function's selector with its colon.
            if peek() == ":", peek(1) == "(" {
                position += 1
                name += ":"
            }
            return token(.word(name, escaped: false))
        }
        if c == "#" {
            position += 1
            guard let next = peek(), Self.isWordStart(next) else {
                throw error("expected a key after \"#\"", at: position)
            }
            return token(.word(word(), escaped: true))
        }
        if c == "$" || c == "@" {
            position += 1
            guard let next = peek(), Self.isWordStart(next) else {
                throw error(
                    c == "$" ? "expected a variable name after \"$\"" : "expected a collection operator after \"@\"",
                    at: position)
            }
            let name = word()
            return token(c == "$" ? .variable(name) : .collectionOperator(name))
        }
        if c == "%" {
            return token(.placeholder(try placeholder()))
        }
        for symbol in Self.symbols where cursor.matches(symbol) {
            position += symbol.count
            return token(.symbol(symbol))
        }
        throw error("unexpected character \(PredicateError.quoted(String(c)))", at: start)
    }

    package static func isWordStart(_ c: Character) -> Bool { c == "_" || c.isLetter }
    package static func isWordPart(_ c: Character) -> Bool { c == "_" || c.isLetter || c.isNumber }

    private mutating func word() -> String {
        let start = position
        while let c = peek(), Self.isWordPart(c) { position += 1 }
        return String(characters[start..<position])
    }

    /// `%@`, `%K`, and the printf conversions that make sense for one scalar argument.
    private mutating func placeholder() throws(PredicateError) -> String {
        let start = position
        position += 1
        for spec in ["@", "K", "lld", "ld", "lu", "lf", "d", "i", "u", "f"] where cursor.matches(spec) {
            position += spec.count
            return spec
        }
        throw error(
            "unknown substitution \(PredicateError.quoted("%" + (peek().map(String.init) ?? "")))"
                + "; expected %@, %K, %d, %i, %ld or %f",
            at: start)
    }

    private static let radixes: [Character: Int] = ["x": 16, "X": 16, "o": 8, "O": 8, "b": 2, "B": 2]

    /// Decimal integers and decimals (with an optional exponent), and `0x`, `0o`, `0b` integers.
    /// Integers beyond Int64 become doubles; numbers beyond Double are an error.
    private mutating func number() throws(PredicateError) -> PredicateToken.Kind {
        let start = position
        if peek() == "-" { position += 1 }
        if peek() == "0", let radixLetter = peek(1), let radix = Self.radixes[radixLetter] {
            position += 2
            let digitsStart = position
            while let c = peek(), c.isHexDigit { position += 1 }
            let digits = String(characters[digitsStart..<position])
            let negative = characters[start] == "-"
            guard !digits.isEmpty, let magnitude = UInt64(digits, radix: radix) else {
                throw error("malformed number \"\(String(characters[start..<position]))\"", at: start)
            }
            let value: Int64? =
                negative
                ? (magnitude == UInt64(Int64.max) + 1 ? Int64.min : Int64(exactly: magnitude).map { -$0 })
                : Int64(exactly: magnitude)
            guard let value else {
                throw error("number \"\(String(characters[start..<position]))\" is out of range", at: start)
            }
            return .integer(value)
        }
        var isDecimal = false
        while let c = peek(), c.isASCII, c.isNumber { position += 1 }
        if peek() == ".", let after = peek(1), after.isASCII, after.isNumber {
            isDecimal = true
            position += 1
            while let c = peek(), c.isASCII, c.isNumber { position += 1 }
        }
        if let e = peek(), e == "e" || e == "E" {
            var ahead = 1
            if peek(ahead) == "+" || peek(ahead) == "-" { ahead += 1 }
            if let digit = peek(ahead), digit.isASCII, digit.isNumber {
                isDecimal = true
                position += ahead
                while let c = peek(), c.isASCII, c.isNumber { position += 1 }
            }
        }
        if let c = peek(), Self.isWordPart(c) {
            throw error("malformed number: unexpected \"\(c)\"", at: position)
        }
        let literal = String(characters[start..<position])
        if !isDecimal, let value = Int64(literal) { return .integer(value) }
        guard let value = Double(literal), value.isFinite else {
            throw error("number \"\(literal)\" is out of range", at: start)
        }
        return .double(value)
    }

    /// A string in `"` or `'` with the escapes `\n \t \r \" \' \\ \uXXXX` (a UTF-16 surrogate pair
    /// is two `\u` escapes).
    private mutating func quotedString() throws(PredicateError) -> String {
        let start = position
        let quote = characters[position]
        position += 1
        var value = ""
        while true {
            guard let c = peek() else { throw error("unterminated string: missing closing \(quote)", at: start) }
            position += 1
            if c == quote { return value }
            guard c == "\\" else {
                value.append(c)
                continue
            }
            let escapeStart = position - 1
            guard let escaped = peek() else { throw error("unterminated string: missing closing \(quote)", at: start) }
            position += 1
            switch escaped {
            case "n": value.append("\n")
            case "t": value.append("\t")
            case "r": value.append("\r")
            case "0": value.append("\0")
            case "\"", "'", "\\": value.append(escaped)
            case "u": value.unicodeScalars.append(try unicodeEscape(startingAt: escapeStart))
            default:
                throw error("unknown escape \(PredicateError.quoted("\\" + String(escaped))) in string", at: escapeStart)
            }
        }
    }

    private mutating func hexQuad(escapeStart: Int) throws(PredicateError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let c = peek(), let digit = c.hexDigitValue else {
                throw error("expected four hex digits after \\u", at: escapeStart)
            }
            value = value * 16 + UInt32(digit)
            position += 1
        }
        return value
    }

    private mutating func unicodeEscape(startingAt escapeStart: Int) throws(PredicateError) -> Unicode.Scalar {
        let first = try hexQuad(escapeStart: escapeStart)
        if (0xD800...0xDBFF).contains(first) {
            guard peek() == "\\", peek(1) == "u" else {
                throw error("\\u\(String(first, radix: 16)) must be followed by a low surrogate escape", at: escapeStart)
            }
            position += 2
            let second = try hexQuad(escapeStart: escapeStart)
            guard (0xDC00...0xDFFF).contains(second) else {
                throw error("invalid surrogate pair in \\u escape", at: escapeStart)
            }
            return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))!
        }
        guard let scalar = Unicode.Scalar(first) else {
            throw error("invalid unicode escape \\u\(String(first, radix: 16))", at: escapeStart)
        }
        return scalar
    }
}

/// A parser that walks a list of ``PredicateToken``s ending in `.end`: the NSPredicate parser
/// and the keyword form of `cdstore query` share the stepping.
package protocol PredicateTokenWalker {
    var tokens: [PredicateToken] { get }
    /// Index of the current token in `tokens`.
    var index: Int { get set }
}

extension PredicateTokenWalker {
    package var current: PredicateToken { tokens[index] }
    package var previous: PredicateToken? { index > 0 ? tokens[index - 1] : nil }

    /// Steps past the current token and returns it; the end token is never stepped past.
    @discardableResult
    package mutating func advance() -> PredicateToken {
        let token = tokens[index]
        if index < tokens.count - 1 { index += 1 }
        return token
    }
}
