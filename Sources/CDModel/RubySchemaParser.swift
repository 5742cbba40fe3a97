import CDPredicate
import Foundation

/// Turns Ruby source text into ``RubyProgram``.
struct RubySchemaParser {
    /// Deeper nesting than this is refused rather than risking the stack on hostile input.
    static let maximumNesting = 64

    var tokens: [RubyToken]
    var index = 0

    static func parse(_ text: String) throws(RubySyntaxError) -> RubyProgram {
        var lexer = RubyLexer(text)
        var parser = RubySchemaParser(tokens: try lexer.tokens())
        return try parser.program()
    }

    init(tokens: [RubyToken]) { self.tokens = tokens }

    var current: RubyToken { tokens[min(index, tokens.count - 1)] }

    mutating func advance() { if index < tokens.count - 1 { index += 1 } }

    mutating func skipNewlines() {
        while current.kind == .newline { advance() }
    }

    func failure(_ message: String, at token: RubyToken? = nil) -> RubySyntaxError {
        let token = token ?? current
        return RubySyntaxError(position: token.position, message: message + ", found " + token.kind.summary)
    }

    mutating func program() throws(RubySyntaxError) -> RubyProgram {
        let calls = try statements(until: nil, depth: 0)
        return RubyProgram(calls: calls, endPosition: current.position)
    }

    /// Calls up to the token that closes the enclosing block (`end`, `}`), or to the end of file
    /// at the top level. The closing token is left for the caller.
    mutating func statements(until closer: (kind: RubyTokenKind, opener: RubyToken)?, depth: Int)
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

    mutating func call(depth: Int) throws(RubySyntaxError) -> RubyCall {
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
    mutating func argumentList(closedBy closer: RubyTokenKind?, depth: Int) throws(RubySyntaxError) -> [RubyArgument] {
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

    enum Item {
        case pair(RubyHashEntry)
        case value(RubyValue)
    }

    /// `label: value`, `"label": value`, `key => value`, or a plain value.
    mutating func item(depth: Int) throws(RubySyntaxError) -> Item {
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

    mutating func value(depth: Int) throws(RubySyntaxError) -> RubyValue {
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
