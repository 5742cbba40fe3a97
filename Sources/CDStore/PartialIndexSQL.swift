import Foundation

/// Turns a fetch index's partial-index predicate (format text such as
/// `density == -1 AND label != -1`) into the WHERE clause Core Data writes
/// (`(ZDENSITY = -1 AND ZLABEL <> -1)`).
///
/// Observed style (VUIndex, Photos): a single comparison stands bare; every compound predicate is
/// wrapped in parentheses, nested ones included; `!=` is `<>`; `== nil` is `IS NULL`. Only
/// comparisons of a property with a constant are handled; anything else returns `nil`. `NOT`
/// has never been seen in a store, so its rendering is a guess.
enum PartialIndexSQL {
    /// `column` maps a property name to its column, or `nil` when it has none.
    static func translate(_ predicate: String, column: (String) -> String?) -> String? {
        guard let tokens = tokenize(predicate) else { return nil }
        return withoutActuallyEscaping(column) { column in
            var parser = Parser(tokens: tokens, column: column)
            guard let sql = parser.disjunction(), parser.atEnd else { return nil }
            return sql
        }
    }

    enum Token: Equatable {
        case word(String)
        case number(String)
        case string(String)
        case symbol(String)
        case open, close
    }

    static func tokenize(_ text: String) -> [Token]? {
        var tokens: [Token] = []
        let characters = Array(text)
        var index = 0
        func isWordCharacter(_ c: Character) -> Bool { c.isLetter || c.isNumber || c == "_" || c == "." || c == "$" }
        while index < characters.count {
            let c = characters[index]
            if c.isWhitespace {
                index += 1
            } else if c == "(" || c == ")" {
                tokens.append(c == "(" ? .open : .close)
                index += 1
            } else if c == "\"" || c == "'" {
                var value = ""
                index += 1
                while index < characters.count, characters[index] != c {
                    if characters[index] == "\\", index + 1 < characters.count { index += 1 }
                    value.append(characters[index])
                    index += 1
                }
                guard index < characters.count else { return nil }
                index += 1
                tokens.append(.string(value))
            } else if c.isNumber || (c == "-" && index + 1 < characters.count && characters[index + 1].isNumber) {
                var value = String(c)
                index += 1
                while index < characters.count, characters[index].isNumber || ".eE+-".contains(characters[index]) {
                    value.append(characters[index])
                    index += 1
                }
                tokens.append(.number(value))
            } else if "=!<>".contains(c) {
                var value = String(c)
                index += 1
                if index < characters.count, "=>".contains(characters[index]) {
                    value.append(characters[index])
                    index += 1
                }
                tokens.append(.symbol(value))
            } else if isWordCharacter(c) {
                var value = ""
                while index < characters.count, isWordCharacter(characters[index]) {
                    value.append(characters[index])
                    index += 1
                }
                tokens.append(.word(value))
            } else {
                return nil
            }
        }
        return tokens
    }

    private struct Parser {
        let tokens: [Token]
        let column: (String) -> String?
        var position = 0

        init(tokens: [Token], column: @escaping (String) -> String?) {
            self.tokens = tokens
            self.column = column
        }

        var atEnd: Bool { position == tokens.count }

        private var next: Token? { position < tokens.count ? tokens[position] : nil }

        private mutating func keyword(_ word: String) -> Bool {
            if case .word(let value)? = next, value.uppercased() == word {
                position += 1
                return true
            }
            return false
        }

        /// `a OR b OR c`, parenthesized as a compound.
        mutating func disjunction() -> String? {
            compound(separator: "OR") { $0.conjunction() }
        }

        mutating func conjunction() -> String? {
            compound(separator: "AND") { $0.unary() }
        }

        private mutating func compound(separator: String, operand: (inout Parser) -> String?) -> String? {
            guard let first = operand(&self) else { return nil }
            var parts = [first]
            while keyword(separator) {
                guard let part = operand(&self) else { return nil }
                parts.append(part)
            }
            return parts.count == 1 ? first : "(" + parts.joined(separator: " \(separator) ") + ")"
        }

        mutating func unary() -> String? {
            if keyword("NOT") {
                guard let operand = unary() else { return nil }
                return "NOT " + (operand.hasPrefix("(") ? operand : "(\(operand))")
            }
            if next == .open {
                position += 1
                guard let inner = disjunction(), next == .close else { return nil }
                position += 1
                return inner
            }
            return comparison()
        }

        /// `key op constant`, the only shape seen in fetch indexes.
        mutating func comparison() -> String? {
            guard case .word(let path)? = next else { return nil }
            position += 1
            guard case .symbol(let symbol)? = next else { return nil }
            position += 1
            guard let value = next else { return nil }
            position += 1
            guard let name = column(path) else { return nil }
            let isNil: Bool
            let literal: String
            switch value {
            case .number(let number):
                isNil = false
                literal = number
            case .string(let text):
                isNil = false
                literal = "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
            case .word(let word):
                switch word.uppercased() {
                case "NIL", "NULL":
                    isNil = true
                    literal = "NULL"
                case "YES", "TRUE":
                    isNil = false
                    literal = "1"
                case "NO", "FALSE":
                    isNil = false
                    literal = "0"
                default:
                    return nil
                }
            default:
                return nil
            }
            let sqlOperator: String
            switch symbol {
            case "==", "=": sqlOperator = isNil ? "IS" : "="
            case "!=", "<>": sqlOperator = isNil ? "IS NOT" : "<>"
            case "<", "<=", ">", ">=", "=<", "=>":
                guard !isNil else { return nil }
                sqlOperator = ["=<": "<=", "=>": ">="][symbol] ?? symbol
            default:
                return nil
            }
            return "\(SQLIdentifier.render(name)) \(sqlOperator) \(literal)"
        }
    }
}
