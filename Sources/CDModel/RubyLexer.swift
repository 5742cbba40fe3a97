import CDPredicate
import Foundation

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
