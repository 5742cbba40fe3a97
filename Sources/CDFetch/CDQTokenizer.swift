import CDPredicate

/// A lexical unit of a CDQ chain (a small subset of Ruby), with the Character range it came from.
struct CDQToken: Equatable {
    enum Kind: Equatable {
        /// A capitalised name (`Author`, `Time`): a Ruby constant.
        case constant(String)
        /// A lower-case name: a method, a local variable, `true`, `false`, `nil`.
        case identifier(String)
        /// `name:` or `"name":`, a hash key written as a label.
        case label(String)
        /// `:name`, `:"name"`, `:'name'`.
        case symbol(String)
        /// A string literal with its escapes decoded.
        case string(CDQString)
        case integer(Int64)
        case double(Double)
        /// Punctuation: `.`, `(`, `)`, `[`, `]`, `,`, `=>`, `|`, `::`, `{`, `}`.
        case punctuation(String)
        case end
    }

    var kind: Kind
    var start: Int
    var end: Int
}

/// A decoded string literal and, for each of its Characters, the offset in the chain of the source
/// Character it came from, so an error inside a format string can point into the chain.
struct CDQString: Equatable {
    var value: String
    /// One offset per Character of `value`, then the offset of the closing quote.
    var sourceOffsets: [Int]

    func sourceOffset(ofCharacter index: Int) -> Int {
        sourceOffsets[max(0, min(index, sourceOffsets.count - 1))]
    }
}

/// Splits a CDQ chain into tokens. It reads Ruby's literal syntax only: nothing is evaluated, so
/// string interpolation (`#{…}`) is an error rather than code to run.
struct CDQTokenizer: CursorTokenizer {
    var cursor: CharacterCursor

    init(_ text: String) {
        cursor = CharacterCursor(text)
    }

    static func isEnd(_ token: CDQToken) -> Bool { token.kind == .end }

    static func isNameStart(_ c: Character) -> Bool { c == "_" || c.isLetter }
    static func isNamePart(_ c: Character) -> Bool { c == "_" || c.isLetter || c.isNumber }
    private static func isDigit(_ c: Character?) -> Bool { c.map { $0.isASCII && $0.isNumber } ?? false }

    mutating func next() throws(PredicateError) -> CDQToken {
        cursor.skipWhitespace()
        let start = position
        func token(_ kind: CDQToken.Kind) -> CDQToken { CDQToken(kind: kind, start: start, end: position) }
        guard let c = peek() else { return token(.end) }

        if Self.isDigit(c) || (c == "-" && Self.isDigit(peek(1))) {
            return token(try number())
        }
        if c == "\"" || c == "'" {
            let string = try quotedString()
            if peek() == ":" && peek(1) != ":" {
                position += 1
                return token(.label(string.value))
            }
            return token(.string(string))
        }
        if Self.isNameStart(c) {
            let name = self.name()
            if peek() == ":" && peek(1) != ":" {
                position += 1
                return token(.label(name))
            }
            return token(name.first!.isUppercase ? .constant(name) : .identifier(name))
        }
        if c == ":" {
            position += 1
            if peek() == ":" {
                position += 1
                return token(.punctuation("::"))
            }
            if peek() == "\"" || peek() == "'" { return token(.symbol(try quotedString().value)) }
            guard let next = peek(), Self.isNameStart(next) else {
                throw error("expected a symbol name after \":\"", at: start)
            }
            return token(.symbol(name()))
        }
        if c == "=" && peek(1) == ">" {
            position += 2
            return token(.punctuation("=>"))
        }
        if [".", "(", ")", "[", "]", ",", "|", "{", "}"].contains(c) {
            position += 1
            return token(.punctuation(String(c)))
        }
        if c == "-" || c == "+" || c == "*" || c == "/" {
            throw error(
                "arithmetic such as \(PredicateError.quoted(String(c))) cannot be evaluated; write the value",
                at: start)
        }
        throw error("unexpected \(PredicateError.quoted(String(c))) in a CDQ query", at: start)
    }

    /// A Ruby name; a trailing `?` or `!` belongs to it, as in method names like `empty?`.
    private mutating func name() -> String {
        let start = position
        while let c = peek(), Self.isNamePart(c) { position += 1 }
        if let c = peek(), c == "?" || c == "!", peek(1) != "=" { position += 1 }
        return String(characters[start..<position])
    }

    /// Decimal integers and floats with `_` separators, and `0x`/`0b`/`0o` integers; a leading `-`
    /// is part of the number (the chain has no arithmetic).
    private mutating func number() throws(PredicateError) -> CDQToken.Kind {
        let start = position
        var sign = ""
        if peek() == "-" {
            sign = "-"
            position += 1
        }
        if peek() == "0", let marker = peek(1)?.lowercased(), let radix = ["x": 16, "b": 2, "o": 8][marker] {
            position += 2
            let digitsStart = position
            while let c = peek(), c.isASCII && c.isHexDigit || c == "_" { position += 1 }
            let digits = String(characters[digitsStart..<position]).replacingOccurrences(of: "_", with: "")
            guard let value = Int64(sign + digits, radix: radix) else {
                throw error(
                    "\(PredicateError.quoted(String(characters[start..<position]))) is not an integer "
                        + "that fits 64 bits", at: start)
            }
            return .integer(value)
        }
        var isFloat = false
        func digits(_ position: inout Int, _ characters: [Character]) {
            while position < characters.count,
                Self.isDigit(characters[position])
                    || (characters[position] == "_" && position + 1 < characters.count
                        && Self.isDigit(characters[position + 1]))
            {
                position += 1
            }
        }
        digits(&position, characters)
        if peek() == ".", Self.isDigit(peek(1)) {
            isFloat = true
            position += 1
            digits(&position, characters)
        }
        if let e = peek(), e == "e" || e == "E" {
            let signLength = peek(1) == "-" || peek(1) == "+" ? 1 : 0
            if Self.isDigit(peek(1 + signLength)) {
                isFloat = true
                position += 1 + signLength
                digits(&position, characters)
            }
        }
        if let c = peek(), Self.isNamePart(c) {
            throw error("unexpected \(PredicateError.quoted(String(c))) after a number", at: position)
        }
        let literal = String(characters[start..<position]).replacingOccurrences(of: "_", with: "")
        if !isFloat, let value = Int64(literal) { return .integer(value) }
        guard let value = Double(literal), value.isFinite else {
            throw error("\(PredicateError.quoted(literal)) is out of range", at: start)
        }
        if !isFloat {
            throw error("\(PredicateError.quoted(literal)) is too large for a 64-bit integer", at: start)
        }
        return .double(value)
    }

    /// A single-quoted string (only `\\` and `\'` are escapes) or a double-quoted one (Ruby's
    /// escapes, see ``RubyStringEscape``; `#{` interpolation is refused).
    private mutating func quotedString() throws(PredicateError) -> CDQString {
        let quoteStart = position
        let quote = characters[position]
        position += 1
        var buffer = RubyStringBuffer()
        while true {
            guard let c = peek() else {
                throw error(
                    "unterminated string: no closing \(quote) for the one at character \(quoteStart)",
                    at: characters.count)
            }
            let offset = position
            position += 1
            if c == quote { break }
            if quote == "\"" && c == "#" && peek() == "{" {
                throw error("string interpolation #{…} cannot be evaluated; write the value", at: offset)
            }
            guard c == "\\" else {
                buffer.append(String(c), from: offset)
                continue
            }
            guard let escaped = peek() else { continue }
            if quote == "'" {
                position += 1
                buffer.append(escaped == "\\" || escaped == "'" ? String(escaped) : "\\" + String(escaped), from: offset)
                continue
            }
            guard escaped.unicodeScalars.count == 1 || escaped == "\r\n" else {
                throw error("unexpected \(PredicateError.quoted(String(escaped))) after a backslash", at: offset)
            }
            let decoded: RubyStringEscape.Decoded
            let length: Int
            do {
                (decoded, length) = try RubyStringEscape.decode { ahead in
                    // "\r\n" is one Character; an escape reads it as the line break it is.
                    guard let character = peek(ahead) else { return nil }
                    if character == "\r\n" { return "\n" }
                    return character.unicodeScalars.count == 1 ? character.unicodeScalars.first : nil
                }
            } catch {
                throw self.error(error.message, at: offset)
            }
            position += length
            buffer.append(decoded, from: offset)
        }
        guard let (value, sources) = buffer.decoded() else {
            throw error("the \\x or octal escapes do not form UTF-8 text", at: quoteStart)
        }
        return CDQString(value: value, sourceOffsets: sources + [position - 1])
    }
}
