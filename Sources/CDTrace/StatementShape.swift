import Foundation

/// A logged SQL statement with its bound values taken out: the key statements are grouped by.
///
/// Core Data binds every value (`?`), but logs differ in spacing (`WHERE  t0.ZAGE`, `COUNT(
/// t1.Z_PK)`, trailing spaces; docs/format/sqldebug.md §2), some captures collapse it, and a few
/// statements carry literals (`IN (1, 2, 3)`, values typed into a pasted statement). The shape
/// is the statement's tokens joined by single spaces, with no space after `(` or before `)` and
/// `,`, every literal that is compared or listed replaced by `?`, an `IN` list of any length
/// written `IN (?…)`, and the intarray tables of batches and prefetches (`_Z_intarray0`,
/// `_Z_intarray1`, …) as `_Z_intarray#`. Numbers elsewhere (`SELECT 0, …`, `LIMIT 20`,
/// `NSCoreDataStringSearch(…, 417, 1)`) are part of the shape: they are how the request was made.
package struct StatementShape: Hashable, Sendable {
    /// The normalised text.
    package let text: String
    /// What kind of statement it is.
    package let kind: Kind
    /// `FROM`/`JOIN`/`INTO`/`UPDATE` tables by alias (`t0` → `ZPERSON`); a table without an
    /// alias is under its own name.
    package let tables: [(alias: String, table: String)]
    /// The table of `t0` (or the one table of an INSERT, UPDATE or DELETE).
    package var mainTable: String? { tables.first?.table }

    /// What a statement does, from its first words and shape.
    package enum Kind: String, Sendable, Codable {
        /// `SELECT … FROM` an entity's rows.
        case fetch
        /// `SELECT COUNT(…)` of rows.
        case count
        /// One object by key: `WHERE t0.Z_PK = ?` and nothing else (an object fault).
        case singleObject
        /// A batch or prefetch through an intarray: `… IN (SELECT * FROM _Z_intarray0)`.
        case intarray
        /// `INSERT INTO`.
        case insert
        /// `UPDATE`.
        case update
        /// `DELETE FROM`.
        case delete
        /// `BEGIN …`.
        case begin
        /// `COMMIT`.
        case commit
        /// `ROLLBACK`.
        case rollback
        /// Core Data's own bookkeeping: pragmas, `Z_METADATA`, `Z_PRIMARYKEY`, `SQLITE_MASTER`.
        case bookkeeping
        /// Anything else.
        case other
    }

    package static func == (lhs: StatementShape, rhs: StatementShape) -> Bool { lhs.text == rhs.text }
    package func hash(into hasher: inout Hasher) { hasher.combine(text) }

    /// The text after `WHERE` (up to `ORDER BY`, `GROUP BY`, `LIMIT` or `HAVING` at the same
    /// depth), or nil.
    package let whereClause: String?
    /// The text after `ORDER BY`, up to `LIMIT`.
    package let orderClause: String?
    /// The number after `LIMIT`, if any.
    package let limit: Int?
    /// Whether the filter is one key compared with one value (`WHERE t0.ZITEM = ?`, `WHERE
    /// t1.Z_1ITEMS = ?`), other than the row's own key: the form of a relationship fault.
    package let filtersOnOneKey: Bool

    /// The shape of `sql`. Everything the analyzer asks of a shape is worked out here, once
    /// per distinct shape, not per statement.
    package init(sql: String) {
        let tokens = Self.tokens(of: sql)
        let text = Self.join(tokens)
        self.text = text
        tables = Self.tables(in: tokens)
        kind = Self.kind(tokens: tokens, tables: tables)
        whereClause = Self.clause(of: text, after: " WHERE ", endingAt: [" ORDER BY ", " GROUP BY ", " LIMIT ", " HAVING "])
        orderClause = Self.clause(of: text, after: " ORDER BY ", endingAt: [" LIMIT "])
        limit = text.range(of: " LIMIT ", options: .backwards).flatMap { Int(text[$0.upperBound...].prefix { $0.isNumber }) }
        filtersOnOneKey = whereClause.map { Self.comparesOneKey($0) && !$0.hasPrefix("t0.Z_PK") } ?? false
    }

    /// Whether `condition` is exactly `t0.Z… = ?` or `t1.Z… = ?`, the column's name after the
    /// `Z` made of capitals, digits and underscores. Checked on the bytes: a regular expression
    /// is compiled each time it is used, and a log can have thousands of shapes.
    static func comparesOneKey(_ condition: String) -> Bool {
        let bytes = Array(condition.utf8)
        let end = Array(" = ?".utf8)
        guard bytes.count > 4 + end.count, bytes[0] == UInt8(ascii: "t"), bytes[1] == UInt8(ascii: "0") || bytes[1] == UInt8(ascii: "1"),
            bytes[2] == UInt8(ascii: "."), bytes[3] == UInt8(ascii: "Z"), Array(bytes.suffix(end.count)) == end
        else { return false }
        return bytes[4..<(bytes.count - end.count)].allSatisfy { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
        }
    }

    // MARK: tokens

    /// A token and whether it is a literal that a bound value could stand for.
    struct Token {
        var text: Substring
        var isLiteral: Bool
    }

    static func tokens(of sql: String) -> [Token] {
        var tokens: [Token] = []
        var index = sql.startIndex
        let end = sql.endIndex
        while index < end {
            let character = sql[index]
            if character.isWhitespace {
                index = sql.index(after: index)
                continue
            }
            let start = index
            if character == "'" || character == "\"" {
                index = sql.index(after: index)
                while index < end {
                    if sql[index] == character {
                        let next = sql.index(after: index)
                        if next < end, sql[next] == character { index = sql.index(after: next); continue }
                        index = next
                        break
                    }
                    index = sql.index(after: index)
                }
                tokens.append(Token(text: sql[start..<index], isLiteral: character == "'"))
            } else if character.isLetter || character == "_" || character.isNumber || character == "." || character == "$" {
                while index < end, sql[index].isLetter || sql[index].isNumber || sql[index] == "_" || sql[index] == "." || sql[index] == "$" {
                    index = sql.index(after: index)
                }
                let word = sql[start..<index]
                let numeric = word.first.map { $0.isNumber || $0 == "." } ?? false
                tokens.append(Token(text: word, isLiteral: numeric))
            } else if "<>!=|".contains(character) {
                while index < end, "<>!=|".contains(sql[index]) { index = sql.index(after: index) }
                tokens.append(Token(text: sql[start..<index], isLiteral: false))
            } else {
                index = sql.index(after: index)
                tokens.append(Token(text: sql[start..<index], isLiteral: false))
            }
        }
        return tokens
    }

    private static let comparisons: Set<Substring> = ["=", "==", "<", ">", "<=", ">=", "!=", "<>", "LIKE", "IS", "AND", "BETWEEN"]

    /// Joins tokens with single spaces, replacing compared and listed literals, collapsing IN
    /// lists and numbering-free intarray names.
    static func join(_ tokens: [Token]) -> String {
        var pieces: [Substring] = []
        pieces.reserveCapacity(tokens.count)
        let isPragma = tokens.first?.text.uppercased() == "PRAGMA"
        for var token in tokens {
            if token.text.hasPrefix("_Z_intarray") { token.text = "_Z_intarray#" }
            if token.isLiteral, !isPragma, let previous = pieces.last {
                let isValue: Bool
                switch previous {
                case "(": isValue = pieces.count >= 2 && pieces[pieces.count - 2].uppercased() == "IN"
                case ",": isValue = inList(pieces)
                default: isValue = comparisons.contains(Substring(previous.uppercased()))
                }
                if isValue { token.text = "?" }
            }
            if token.text == "?", pieces.count >= 2, pieces[pieces.count - 1] == ",",
                pieces[pieces.count - 2] == "?" || pieces[pieces.count - 2] == "?…", inList(pieces)
            {
                pieces.removeLast()
                pieces[pieces.count - 1] = "?…"
                continue
            }
            if token.text == ")", pieces.count >= 3, pieces[pieces.count - 1] == "?", pieces[pieces.count - 2] == "(",
                pieces[pieces.count - 3].uppercased() == "IN"
            {
                pieces[pieces.count - 1] = "?…"
            }
            pieces.append(token.text)
        }
        var text = ""
        text.reserveCapacity(pieces.reduce(0) { $0 + $1.count + 1 })
        var previous: Substring = ""
        for piece in pieces {
            let call = piece == "(" && (previous.first?.isLetter ?? false) && !keywordsBeforeParenthesis.contains(previous.uppercased())
            if !text.isEmpty && previous != "(" && piece != ")" && piece != "," && !call { text.append(" ") }
            text += piece
            previous = piece
        }
        return text
    }

    /// Words followed by a space before `(`; any other word before `(` is a function name.
    private static let keywordsBeforeParenthesis: Set<String> = [
        "IN", "FROM", "JOIN", "WHERE", "AND", "OR", "NOT", "ON", "VALUES",
        "SELECT", "EXISTS", "BY", "HAVING", "AS", "WHEN", "THEN", "ELSE",
    ]

    /// Whether the innermost open parenthesis of `pieces` follows `IN`.
    private static func inList(_ pieces: [Substring]) -> Bool {
        var depth = 0
        var index = pieces.count - 1
        while index >= 0 {
            if pieces[index] == ")" { depth += 1 }
            if pieces[index] == "(" {
                if depth == 0 { return index > 0 && pieces[index - 1].uppercased() == "IN" }
                depth -= 1
            }
            index -= 1
        }
        return false
    }

    private static let tableKeywords: Set<String> = ["FROM", "JOIN", "INTO", "UPDATE"]
    private static let notAliases: Set<String> = [
        "WHERE", "JOIN", "LEFT", "INNER", "OUTER", "CROSS", "ON", "ORDER", "GROUP",
        "LIMIT", "SET", "VALUES", "HAVING", "NATURAL", "USING", "AS", "OR", "UNION",
    ]

    static func tables(in tokens: [Token]) -> [(alias: String, table: String)] {
        var result: [(alias: String, table: String)] = []
        for index in tokens.indices where tableKeywords.contains(tokens[index].text.uppercased()) {
            guard index + 1 < tokens.count else { continue }
            let name = tokens[index + 1].text
            guard let first = name.first, first.isLetter || first == "_" else { continue }
            if tokens[index].text.uppercased() == "UPDATE", name.uppercased() == "OR", index + 3 < tokens.count {
                // UPDATE OR FAIL Z_PRIMARYKEY
                result.append((String(tokens[index + 3].text), String(tokens[index + 3].text)))
                continue
            }
            var alias = String(name)
            if index + 2 < tokens.count, let aliasFirst = tokens[index + 2].text.first, aliasFirst.isLetter,
                !notAliases.contains(tokens[index + 2].text.uppercased())
            {
                alias = String(tokens[index + 2].text)
            }
            let table = String(name.split(separator: "(").first ?? name)
            if !result.contains(where: { $0.alias == alias }) { result.append((alias, table)) }
        }
        return result
    }

    static func kind(tokens: [Token], tables: [(alias: String, table: String)]) -> Kind {
        guard let first = tokens.first?.text.uppercased() else { return .other }
        let table = tables.first?.table.uppercased() ?? ""
        switch first {
        case "BEGIN": return .begin
        case "COMMIT", "END": return .commit
        case "ROLLBACK": return .rollback
        case "PRAGMA": return .bookkeeping
        case "INSERT": return ["Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"].contains(table) ? .bookkeeping : .insert
        case "UPDATE": return table == "Z_PRIMARYKEY" || table == "Z_METADATA" ? .bookkeeping : .update
        case "DELETE": return .delete
        case "SELECT":
            if ["Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE", "SQLITE_MASTER"].contains(table) { return .bookkeeping }
            if tables.isEmpty { return .other }
            let upper = tokens.map { $0.text.uppercased() }
            if upper.count > 2, upper[1] == "COUNT" { return .count }
            if upper.contains("_Z_INTARRAY#") || upper.contains(where: { $0.hasPrefix("_Z_INTARRAY") }) { return .intarray }
            if let whereIndex = upper.firstIndex(of: "WHERE") {
                var rest = Array(upper[(whereIndex + 1)...])
                if let limit = rest.firstIndex(of: "LIMIT"), limit + 2 == rest.count, rest[limit + 1] == "1" { rest.removeLast(2) }
                if rest == ["T0.Z_PK", "=", "?"] || rest == ["T0.Z_PK", "=", "?", ")"] { return .singleObject }
            }
            return .fetch
        default:
            return .other
        }
    }

    private static func clause(of text: String, after keyword: String, endingAt ends: [String]) -> String? {
        guard let start = topLevelRange(of: keyword, in: text) else { return nil }
        var end = text.endIndex
        for candidate in ends {
            if let found = topLevelRange(of: candidate, in: text, from: start.upperBound), found.lowerBound < end { end = found.lowerBound }
        }
        return String(text[start.upperBound..<end])
    }

    /// The first occurrence of `keyword` in `text` outside parentheses.
    private static func topLevelRange(of keyword: String, in text: String, from: String.Index? = nil) -> Range<String.Index>? {
        var search = from ?? text.startIndex
        while let found = text.range(of: keyword, range: search..<text.endIndex) {
            let before = text[text.startIndex..<found.lowerBound]
            let depth = before.reduce(0) { $0 + ($1 == "(" ? 1 : $1 == ")" ? -1 : 0) }
            if depth == 0 { return found }
            search = found.upperBound
        }
        return nil
    }

    /// Whether a fetch returns objects (`SELECT 0, t0.Z_PK, …`, `SELECT t0.Z_ENT, t0.Z_PK, …`,
    /// a partial `SELECT 1, t0.Z_PK, …`) rather than dictionaries or aggregates.
    package var returnsObjects: Bool {
        text.hasPrefix("SELECT 0, t0.Z_PK") || text.hasPrefix("SELECT 1, t0.Z_PK") || text.hasPrefix("SELECT t0.Z_ENT, t0.Z_PK")
            || text.hasPrefix("SELECT DISTINCT 0, t0.Z_PK") || text.hasPrefix("SELECT DISTINCT t0.Z_ENT, t0.Z_PK")
    }

    /// Whether the statement reads only keys: `SELECT 0, t0.Z_PK FROM …` or `SELECT t0.Z_ENT,
    /// t0.Z_PK FROM …` without a WHERE on an intarray (the first step of a batched fetch).
    package var selectsKeysOnly: Bool {
        text.hasPrefix("SELECT 0, t0.Z_PK FROM ") || text.hasPrefix("SELECT t0.Z_ENT, t0.Z_PK FROM ")
    }
}
