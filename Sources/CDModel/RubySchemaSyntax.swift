import CDPredicate
import Foundation

// The small part of Ruby that ruby-xcdm schema files use, read as data: method calls with
// literal arguments and `do … end` / `{ … }` blocks (reference/model-format.md §7).
//
// Nothing is evaluated. There are no variables, constants, operators, string interpolation,
// heredocs or `%w` literals; meeting one is a parse error, never a guess.

/// 1-based line and column (counted in Unicode scalars) in a Ruby file.
struct RubySourcePosition: Equatable, Sendable {
    var line: Int
    var column: Int
}

/// A parse or DSL error at a position in a Ruby file.
struct RubySyntaxError: Error {
    var position: RubySourcePosition
    var message: String
}

/// A literal value.
indirect enum RubyValue: Equatable, Sendable {
    case string(String)
    case symbol(String)
    /// An integer literal as Ruby's `to_s` prints it: decimal, no underscores.
    case integer(String)
    case float(Double)
    case boolean(Bool)
    case `nil`
    case hash([RubyHashEntry])

    /// Everything but `nil` and `false` is true in Ruby.
    var isTruthy: Bool {
        switch self {
        case .nil, .boolean(false): return false
        default: return true
        }
    }

    /// Ruby's `to_s`; `nil` for a hash, whose `inspect` text no schema should depend on.
    var rubyString: String? {
        switch self {
        case .string(let text), .symbol(let text), .integer(let text): return text
        case .float(let value): return RubyFloatFormat.string(value)
        case .boolean(let value): return value ? "true" : "false"
        case .nil: return ""
        case .hash: return nil
        }
    }

    /// How the value reads in an error message.
    var summary: String {
        switch self {
        case .string(let text): return "\"\(text)\""
        case .symbol(let name): return ":\(name)"
        case .hash: return "a hash"
        case .nil: return "nil"
        default: return rubyString ?? ""
        }
    }
}

/// One `key => value` (or `key: value`) pair of a hash, in source order.
struct RubyHashEntry: Equatable, Sendable {
    var key: RubyValue
    var value: RubyValue
    var position: RubySourcePosition
}

/// A positional argument and where it starts.
struct RubyArgument {
    var value: RubyValue
    var position: RubySourcePosition
}

/// `name args` optionally followed by a block. Trailing `key: value` pairs are gathered into
/// one final hash argument, as Ruby does.
struct RubyCall {
    var name: String
    var position: RubySourcePosition
    var arguments: [RubyArgument]
    var block: [RubyCall]?
}

/// A whole file: its top-level calls and where the code ends (for "found end of file" errors).
struct RubyProgram {
    var calls: [RubyCall]
    var endPosition: RubySourcePosition
}

/// Ruby's `Float#to_s`: shortest round-trip digits, fixed notation for decimal exponents
/// from -4 to 16, scientific (`1.0e+20`, `1.0e-05`) outside that range.
enum RubyFloatFormat {
    static func string(_ value: Double) -> String {
        guard value.isFinite else { return value.isNaN ? "NaN" : (value < 0 ? "-Infinity" : "Infinity") }
        let sign = value.sign == .minus ? "-" : ""
        let (digits, pointPosition) = shortestDigits(abs(value))
        if digits.isEmpty { return sign + "0.0" }
        if pointPosition < -3 || pointPosition > 16 {
            let rest = digits.dropFirst()
            let exponent = pointPosition - 1
            let exponentText = (exponent < 0 ? "-" : "+") + (abs(exponent) < 10 ? "0" : "") + String(abs(exponent))
            return sign + String(digits.prefix(1)) + "." + (rest.isEmpty ? "0" : String(rest)) + "e" + exponentText
        }
        if pointPosition <= 0 {
            return sign + "0." + String(repeating: "0", count: -pointPosition) + digits
        }
        if pointPosition >= digits.count {
            return sign + digits + String(repeating: "0", count: pointPosition - digits.count) + ".0"
        }
        let split = digits.index(digits.startIndex, offsetBy: pointPosition)
        return sign + digits[..<split] + "." + digits[split...]
    }

    /// The significant digits of Swift's shortest representation, and the position of the
    /// decimal point relative to them (value = 0.DIGITS × 10^pointPosition).
    private static func shortestDigits(_ value: Double) -> (String, Int) {
        let text = "\(value)"
        let parts = text.split(separator: "e", maxSplits: 1)
        let exponent = parts.count == 2 ? Int(parts[1]) ?? 0 : 0
        let mantissa = parts.first.map(String.init) ?? ""
        let pieces = mantissa.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let integerPart = pieces.first.map(String.init) ?? ""
        let fractionPart = pieces.count == 2 ? String(pieces[1]) : ""
        var digits = Substring(integerPart + fractionPart)
        var pointPosition = integerPart.count + exponent
        while digits.first == "0" {
            digits = digits.dropFirst()
            pointPosition -= 1
        }
        while digits.last == "0" { digits = digits.dropLast() }
        return (String(digits), pointPosition)
    }
}

/// Turns Ruby source text into ``RubyProgram``.
struct RubySchemaParser {
    /// Deeper nesting than this is refused rather than risking the stack on hostile input.
    static let maximumNesting = 64

    private var tokens: [RubyToken]
    private var index = 0

    static func parse(_ text: String) throws(RubySyntaxError) -> RubyProgram {
        var lexer = RubyLexer(text)
        var parser = RubySchemaParser(tokens: try lexer.tokens())
        return try parser.program()
    }

    private init(tokens: [RubyToken]) { self.tokens = tokens }

    private var current: RubyToken { tokens[min(index, tokens.count - 1)] }

    private mutating func advance() { if index < tokens.count - 1 { index += 1 } }

    private mutating func skipNewlines() {
        while current.kind == .newline { advance() }
    }

    private func failure(_ message: String, at token: RubyToken? = nil) -> RubySyntaxError {
        let token = token ?? current
        return RubySyntaxError(position: token.position, message: message + ", found " + token.kind.summary)
    }

    private mutating func program() throws(RubySyntaxError) -> RubyProgram {
        let calls = try statements(until: nil, depth: 0)
        return RubyProgram(calls: calls, endPosition: current.position)
    }

    /// Calls up to the token that closes the enclosing block (`end`, `}`), or to the end of file
    /// at the top level. The closing token is left for the caller.
    private mutating func statements(until closer: (kind: RubyTokenKind, opener: RubyToken)?, depth: Int)
        throws(RubySyntaxError) -> [RubyCall]
    {
        var calls: [RubyCall] = []
        while true {
            skipNewlines()
            if let closer, current.kind == closer.kind { return calls }
            if current.kind == .endOfFile {
                guard let closer else { return calls }
                let opened = "\(closer.opener.position.line):\(closer.opener.position.column)"
                throw failure("expected \(closer.kind.summary) to close the block opened with \(closer.opener.kind.summary) at \(opened)")
            }
            calls.append(try call(depth: depth))
            switch current.kind {
            case .newline, .endOfFile, .rightBrace, .identifier("end"): continue
            default: throw failure("expected a new line after the call to `\(calls[calls.count - 1].name)`")
            }
        }
    }

    private mutating func call(depth: Int) throws(RubySyntaxError) -> RubyCall {
        guard depth < Self.maximumNesting else { throw failure("blocks nest too deeply") }
        guard case .identifier(let name) = current.kind, !RubyToken.keywords.contains(name) else {
            throw failure("expected a method call such as `schema`, `entity` or `string`")
        }
        let start = current
        advance()
        var arguments: [RubyArgument] = []
        var parenthesised = false
        if current.kind == .leftParen {
            parenthesised = true
            advance()
            arguments = try argumentList(closedBy: .rightParen, depth: depth)
            advance()
        } else if current.kind.startsArgument {
            arguments = try argumentList(closedBy: nil, depth: depth)
        }
        var block: [RubyCall]?
        if current.kind == .identifier("do") {
            let opener = current
            advance()
            block = try statements(until: (.identifier("end"), opener), depth: depth + 1)
            advance()
        } else if current.kind == .leftBrace, parenthesised || arguments.isEmpty {
            let opener = current
            advance()
            block = try statements(until: (.rightBrace, opener), depth: depth + 1)
            advance()
        }
        return RubyCall(name: name, position: start.position, arguments: arguments, block: block)
    }

    /// Comma-separated arguments. With parentheses, new lines are allowed anywhere and the list
    /// ends at `)` (left for the caller); without, it ends at the first token that is no comma.
    private mutating func argumentList(closedBy closer: RubyTokenKind?, depth: Int) throws(RubySyntaxError) -> [RubyArgument] {
        var positional: [RubyArgument] = []
        var pairs: [RubyHashEntry] = []
        var pairsStart: RubySourcePosition?
        if closer != nil { skipNewlines() }
        while current.kind != closer {
            let start = current
            switch try item(depth: depth) {
            case .pair(let pair):
                if pairsStart == nil { pairsStart = start.position }
                pairs.append(pair)
            case .value(let value):
                guard pairs.isEmpty else {
                    throw failure("expected `key: value` (a plain argument cannot follow keyword arguments)", at: start)
                }
                positional.append(RubyArgument(value: value, position: start.position))
            }
            if closer != nil { skipNewlines() }
            guard current.kind == .comma else {
                if let closer, current.kind != closer { throw failure("expected `,` or \(closer.summary)") }
                break
            }
            advance()
            skipNewlines()
        }
        if let pairsStart { positional.append(RubyArgument(value: .hash(pairs), position: pairsStart)) }
        return positional
    }

    private enum Item {
        case pair(RubyHashEntry)
        case value(RubyValue)
    }

    /// `label: value`, `"label": value`, `key => value`, or a plain value.
    private mutating func item(depth: Int) throws(RubySyntaxError) -> Item {
        let start = current
        if case .label(let name) = current.kind {
            advance()
            skipNewlines()
            return .pair(RubyHashEntry(key: .symbol(name), value: try value(depth: depth), position: start.position))
        }
        let key = try value(depth: depth)
        guard current.kind == .arrow else { return .value(key) }
        advance()
        skipNewlines()
        return .pair(RubyHashEntry(key: key, value: try value(depth: depth), position: start.position))
    }

    private mutating func value(depth: Int) throws(RubySyntaxError) -> RubyValue {
        let token = current
        switch token.kind {
        case .string(let text): advance(); return .string(text)
        case .symbol(let name): advance(); return .symbol(name)
        case .integer(let text): advance(); return .integer(text)
        case .float(let number): advance(); return .float(number)
        case .identifier("true"): advance(); return .boolean(true)
        case .identifier("false"): advance(); return .boolean(false)
        case .identifier("nil"): advance(); return .nil
        case .leftBrace:
            guard depth < Self.maximumNesting else { throw failure("hashes nest too deeply") }
            advance()
            var entries: [RubyHashEntry] = []
            skipNewlines()
            while current.kind != .rightBrace {
                guard case .pair(let entry) = try item(depth: depth + 1) else {
                    throw failure("expected `=>` after the hash key")
                }
                entries.append(entry)
                skipNewlines()
                guard current.kind == .comma else {
                    guard current.kind == .rightBrace else { throw failure("expected `,` or `}` in a hash") }
                    break
                }
                advance()
                skipNewlines()
            }
            advance()
            return .hash(entries)
        default:
            throw failure("expected a value (a string, symbol, number, true, false, nil or a hash)")
        }
    }
}

/// A token and where it starts.
struct RubyToken {
    static let keywords: Set<String> = ["do", "end", "true", "false", "nil"]

    var kind: RubyTokenKind
    var position: RubySourcePosition
}

enum RubyTokenKind: Equatable {
    /// Also the keywords `do`, `end`, `true`, `false`, `nil`.
    case identifier(String)
    /// `name:` (or `"name":`), a symbol key.
    case label(String)
    case symbol(String)
    case string(String)
    case integer(String)
    case float(Double)
    case arrow, comma, leftParen, rightParen, leftBrace, rightBrace
    /// A line break or `;`.
    case newline
    case endOfFile

    var startsValue: Bool {
        switch self {
        case .string, .symbol, .integer, .float, .leftBrace: return true
        case .identifier(let name): return ["true", "false", "nil"].contains(name)
        default: return false
        }
    }

    /// A token that begins the arguments of a call written without parentheses. A `{` right
    /// after a method name opens a block, as in Ruby.
    var startsArgument: Bool {
        if case .label = self { return true }
        return startsValue && self != .leftBrace
    }

    var summary: String {
        switch self {
        case .identifier(let name): return "`\(name)`"
        case .label(let name): return "`\(name):`"
        case .symbol(let name): return "`:\(name)`"
        case .string(let text):
            let shown = text.count > 30 ? String(text.prefix(30)) + "…" : text
            return "the string \"\(shown.replacingOccurrences(of: "\n", with: "\\n"))\""
        case .integer(let text): return "the number \(text)"
        case .float(let number): return "the number \(RubyFloatFormat.string(number))"
        case .arrow: return "`=>`"
        case .comma: return "`,`"
        case .leftParen: return "`(`"
        case .rightParen: return "`)`"
        case .leftBrace: return "`{`"
        case .rightBrace: return "`}`"
        case .newline: return "the end of the line"
        case .endOfFile: return "the end of the file"
        }
    }
}

/// Splits source text into tokens; stops at `__END__` (everything after it is data, not code).
struct RubyLexer {
    private let scalars: [Unicode.Scalar]
    private var offset = 0
    private var line = 1
    private var column = 1

    init(_ text: String) { scalars = Array(text.unicodeScalars) }

    private var position: RubySourcePosition { RubySourcePosition(line: line, column: column) }

    private func peek(_ ahead: Int = 0) -> Unicode.Scalar? {
        offset + ahead < scalars.count ? scalars[offset + ahead] : nil
    }

    private mutating func take() -> Unicode.Scalar? {
        guard let scalar = peek() else { return nil }
        offset += 1
        if scalar == "\n" {
            line += 1
            column = 1
        } else {
            column += 1
        }
        return scalar
    }

    private var atLineStart: Bool { column == 1 }

    /// Whether the rest of the line is exactly `word` (trailing spaces allowed), or with
    /// `prefixOnly`, starts with `word` followed by white space.
    private func lineIs(_ word: String, prefixOnly: Bool = false) -> Bool {
        let expected = Array(word.unicodeScalars)
        guard offset + expected.count <= scalars.count,
            Array(scalars[offset..<offset + expected.count]) == expected
        else { return false }
        let next = offset + expected.count
        guard next < scalars.count else { return true }
        if prefixOnly { return scalars[next] == " " || scalars[next] == "\t" || scalars[next] == "\n" || scalars[next] == "\r" }
        var rest = next
        while rest < scalars.count, scalars[rest] == " " || scalars[rest] == "\t" || scalars[rest] == "\r" { rest += 1 }
        return rest == scalars.count || scalars[rest] == "\n"
    }

    mutating func tokens() throws(RubySyntaxError) -> [RubyToken] {
        var result: [RubyToken] = []
        while true {
            if atLineStart, lineIs("__END__") { break }
            if atLineStart, lineIs("=begin", prefixOnly: true) {
                try skipEmbeddedDocument()
                continue
            }
            guard let scalar = peek() else { break }
            let start = position
            switch scalar {
            case " ", "\t", "\r":
                _ = take()
            case "\\" where peek(1) == "\n" || (peek(1) == "\r" && peek(2) == "\n"):
                while let next = take(), next != "\n" {}
            case "#":
                while let next = peek(), next != "\n" { _ = take() }
            case "\n", ";":
                _ = take()
                if result.last?.kind != .newline { result.append(RubyToken(kind: .newline, position: start)) }
            case ",": _ = take(); result.append(RubyToken(kind: .comma, position: start))
            case "(": _ = take(); result.append(RubyToken(kind: .leftParen, position: start))
            case ")": _ = take(); result.append(RubyToken(kind: .rightParen, position: start))
            case "{": _ = take(); result.append(RubyToken(kind: .leftBrace, position: start))
            case "}": _ = take(); result.append(RubyToken(kind: .rightBrace, position: start))
            case "=" where peek(1) == ">":
                _ = take(); _ = take()
                result.append(RubyToken(kind: .arrow, position: start))
            case "\"", "'":
                let text = try string()
                if peek() == ":", peek(1) != ":" {
                    _ = take()
                    result.append(RubyToken(kind: .label(text), position: start))
                } else {
                    result.append(RubyToken(kind: .string(text), position: start))
                }
            case ":":
                result.append(RubyToken(kind: try symbol(), position: start))
            case "-", "+":
                guard let next = peek(1), Self.isDigit(next) else { throw unexpected(scalar) }
                _ = take()
                result.append(RubyToken(kind: try number(negative: scalar == "-", start: start), position: start))
            default:
                if Self.isDigit(scalar) {
                    result.append(RubyToken(kind: try number(negative: false, start: start), position: start))
                } else if Self.isIdentifierStart(scalar) {
                    let name = identifier()
                    if peek() == ":", peek(1) != ":" {
                        _ = take()
                        result.append(RubyToken(kind: .label(name), position: start))
                    } else {
                        result.append(RubyToken(kind: .identifier(name), position: start))
                    }
                } else {
                    throw unexpected(scalar)
                }
            }
        }
        result.append(RubyToken(kind: .endOfFile, position: position))
        return result
    }

    private func unexpected(_ scalar: Unicode.Scalar) -> RubySyntaxError {
        let shown = scalar.properties.isWhitespace || scalar.value < 0x20 ? String(format: "U+%04X", scalar.value) : "`\(scalar)`"
        let hint: String
        switch scalar {
        case "%", "<": hint = " (%-literals and heredocs are not supported)"
        case "@", "$": hint = " (variables are not supported: schemas are read as data)"
        default: hint = ""
        }
        return RubySyntaxError(position: position, message: "unexpected character \(shown)\(hint)")
    }

    /// `=begin` … `=end` comment lines.
    private mutating func skipEmbeddedDocument() throws(RubySyntaxError) {
        let start = position
        while true {
            while let next = take(), next != "\n" {}
            if peek() == nil {
                throw RubySyntaxError(position: start, message: "`=begin` comment has no matching `=end`")
            }
            if lineIs("=end", prefixOnly: true) {
                while let next = peek(), next != "\n" { _ = take() }
                return
            }
        }
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }

    private static func isIdentifierStart(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || scalar.value > 0x7F
    }

    private static func isIdentifierPart(_ scalar: Unicode.Scalar) -> Bool {
        isIdentifierStart(scalar) || isDigit(scalar)
    }

    private mutating func identifier() -> String {
        var name = String.UnicodeScalarView()
        while let next = peek(), Self.isIdentifierPart(next) { name.append(next); _ = take() }
        if let next = peek(), next == "?" || next == "!", peek(1) != "=" { name.append(next); _ = take() }
        return String(name)
    }

    private mutating func symbol() throws(RubySyntaxError) -> RubyTokenKind {
        let start = position
        _ = take()
        if let next = peek(), next == "\"" || next == "'" { return .symbol(try string()) }
        guard let next = peek(), Self.isIdentifierStart(next) else {
            throw RubySyntaxError(position: start, message: "expected a symbol name after `:`")
        }
        var name = identifier()
        if peek() == "=", peek(1) != ">" { name += "="; _ = take() }
        return .symbol(name)
    }

    /// A single- or double-quoted string; the opening quote is the current character. Escapes
    /// in double quotes are Ruby's (``RubyStringEscape``).
    private mutating func string() throws(RubySyntaxError) -> String {
        let start = position
        guard let quote = take() else { return "" }
        var buffer = RubyStringBuffer()
        while true {
            guard let scalar = take() else {
                throw RubySyntaxError(position: start, message: "unterminated string: no closing \(quote) before the end of the file")
            }
            if scalar == quote { break }
            if quote == "\"", scalar == "#", let next = peek(), next == "{" || next == "@" || next == "$" {
                throw RubySyntaxError(position: start, message: "string interpolation (`#\(next)`) is not supported: schemas are read as data")
            }
            guard scalar == "\\" else { buffer.append(String(scalar), from: offset); continue }
            if quote == "'" {
                guard let escaped = take() else { continue }
                buffer.append((escaped == "\\" || escaped == "'" ? "" : "\\") + String(escaped), from: offset)
                continue
            }
            guard peek() != nil else { continue }
            do {
                let (decoded, length) = try RubyStringEscape.decode { ahead in peek(ahead) }
                for _ in 0..<length { _ = take() }
                buffer.append(decoded, from: offset)
            } catch {
                throw RubySyntaxError(position: start, message: error.message + " in string")
            }
        }
        guard let decoded = buffer.decoded() else {
            throw RubySyntaxError(position: start, message: "the \\x or octal escapes in the string do not form UTF-8 text")
        }
        return decoded.value
    }

    /// An integer (decimal, `0x`, `0b`, `0o` or leading-zero octal) or a float; the sign, if
    /// any, is already consumed.
    private mutating func number(negative: Bool, start: RubySourcePosition) throws(RubySyntaxError) -> RubyTokenKind {
        var text = ""
        func digits(_ allowed: (Unicode.Scalar) -> Bool) {
            while let next = peek(), allowed(next) || (next == "_" && peek(1).map(allowed) == true) {
                if next != "_" { text.unicodeScalars.append(next) }
                _ = take()
            }
        }
        var radix = 10
        if peek() == "0", let marker = peek(1), "xXbBoOdD_01234567".unicodeScalars.contains(marker) {
            switch marker {
            case "x", "X": radix = 16
            case "b", "B": radix = 2
            case "d", "D": radix = 10
            default: radix = 8
            }
            _ = take()
            if !"_01234567".unicodeScalars.contains(marker) { _ = take() }
            digits { $0.properties.isASCIIHexDigit && Int(String($0), radix: radix) != nil }
        } else {
            digits(Self.isDigit)
        }
        var isFloat = false
        if radix == 10 {
            if peek() == ".", let next = peek(1), Self.isDigit(next) {
                isFloat = true
                text += "."
                _ = take()
                digits(Self.isDigit)
            }
            if let marker = peek(), marker == "e" || marker == "E",
                let next = peek(1), Self.isDigit(next) || ((next == "-" || next == "+") && peek(2).map(Self.isDigit) == true)
            {
                isFloat = true
                text += "e"
                _ = take()
                if next == "-" || next == "+" { text.unicodeScalars.append(next); _ = take() }
                digits(Self.isDigit)
            }
        }
        if let next = peek(), Self.isIdentifierPart(next) {
            throw RubySyntaxError(position: start, message: "malformed number")
        }
        if isFloat {
            guard let value = Double(text) else { throw RubySyntaxError(position: start, message: "malformed number") }
            return .float(negative ? -value : value)
        }
        if text.isEmpty {
            guard radix == 8 else { throw RubySyntaxError(position: start, message: "malformed number") }
            text = "0"
        }
        if let value = Int64(text, radix: radix) { return .integer(String(negative && value != 0 ? -value : value)) }
        guard radix == 10 else { throw RubySyntaxError(position: start, message: "number too large") }
        let significant = text.drop { $0 == "0" }
        return .integer((negative ? "-" : "") + significant)
    }
}
