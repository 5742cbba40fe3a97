import CDPredicate
import Foundation

/// The Ruby values a CDQ chain may compare with: strings, numbers, `true`/`false`/`nil`, arrays
/// (for `in` and format arguments) and a few date constructors. Everything else a Ruby program
/// could write there (variables, arithmetic, method calls) needs evaluation and is an error.
extension CDQChainParser {
    /// The comparison option constants of `NSComparisonPredicateOptions`, which CDQ passes through
    /// as the optional second argument of a comparison (`motion/cdq/partial_predicate.rb`).
    static let optionConstants: [String: Int64] = [
        "NSCaseInsensitivePredicateOption": 1,
        "NSDiacriticInsensitivePredicateOption": 2,
        "NSNormalizedPredicateOption": 4,
    ]

    /// The option bits in NSComparisonPredicate's order; bit 8 is what `[l]` sets.
    static let optionBits: [(Int64, ComparisonOptions)] = [
        (1, .caseInsensitive), (2, .diacriticInsensitive), (4, .normalized), (8, .localeSensitive),
    ]

    mutating func parseValue(allowingArray: Bool = false) throws(PredicateError) -> Expression {
        let token = current
        switch token.kind {
        case .string(let string): advance(); return .constant(.string(string.value))
        case .integer(let value): advance(); return .constant(.integer(value))
        case .double(let value): advance(); return .constant(.double(value))
        case .identifier("true"): advance(); return .constant(.bool(true))
        case .identifier("false"): advance(); return .constant(.bool(false))
        case .identifier("nil"): advance(); return .constant(.null)
        case .punctuation("["):
            guard allowingArray else {
                throw error("an array is a value only for .in and for a format string's %@", at: token.start)
            }
            return try parseArray()
        case .constant("Time"), .constant("NSDate"):
            return .constant(.date(try parseDate()))
        case .symbol(let name):
            throw error(
                "a symbol names a key, not a value; write the value as a string, not :"
                    + PredicateError.quoted(name), at: token.start)
        case .identifier(let name):
            throw error(
                "\(name) is a Ruby variable or method, which cannot be evaluated; write the value itself "
                    + "(a date as Time.parse('2024-05-31'))", at: token.start)
        case .constant(let name):
            throw error("the constant \(name) cannot be evaluated; write the value itself", at: token.start)
        default:
            throw expectation(
                "a value: a string, a number, true, false, nil "
                    + "or a date such as Time.parse('2024-05-31')")
        }
    }

    /// `[v, …]` of plain values (no nested arrays), as an aggregate expression.
    mutating func parseArray() throws(PredicateError) -> Expression {
        advance()
        var elements: [Expression] = []
        while !isPunctuation("]") {
            elements.append(try parseValue())
            guard isPunctuation(",") else { break }
            advance()
        }
        try expectPunctuation("]", "\",\" or \"]\" in the array")
        return .aggregate(elements)
    }

    /// `Time.now`, `NSDate.date`, `Time.parse('…')`/`Time.iso8601('…')` (ISO 8601, UTC without a
    /// zone, as `CAST` reads it), `Time.at(seconds since 1970)`, `Time.utc(year, month, …)`/`Time.gm`
    /// and `Time.local(year, month, …)`/`Time.mktime`/`Time.new(year, …)` in the local time zone.
    mutating func parseDate() throws(PredicateError) -> Date {
        let classToken = advance()
        let className = classToken.kind == .constant("NSDate") ? "NSDate" : "Time"
        try expectPunctuation(".", "\".\" and a method, as in Time.parse('2024-05-31')")
        let methodToken = current
        guard let method = identifier else { throw expectation("a method such as now, parse, at, utc or local") }
        advance()
        let hasArguments = isPunctuation("(") && tokens[index + 1].kind != .punctuation(")")
        switch (className, method) {
        case ("Time", "now"), ("NSDate", "date"), ("NSDate", "now"), ("NSDate", "new"):
            try skipEmptyParentheses(after: method)
            return now
        case ("Time", "new") where !hasArguments:
            try skipEmptyParentheses(after: method)
            return now
        case ("Time", "parse"), ("Time", "iso8601"):
            try expectPunctuation("(", "\"(\" and a date string such as '2024-05-31'")
            let stringToken = current
            guard case .string(let string) = current.kind else {
                throw expectation("a date string such as '2024-05-31' or '2024-05-31T12:00:00Z'")
            }
            guard let date = CoreDataDate(iso8601: string.value)?.date else {
                throw error(
                    "\(PredicateError.quoted(string.value)) is not an ISO-8601 date such as 2024-05-31 "
                        + "or 2024-05-31T12:00:00Z", at: stringToken.start)
            }
            advance()
            try expectPunctuation(")", "\")\" to close Time.\(method)(")
            return date
        case ("Time", "at"):
            try expectPunctuation("(", "\"(\" and seconds since 1970")
            let seconds: Double
            switch current.kind {
            case .integer(let value): seconds = Double(value)
            case .double(let value): seconds = value
            default: throw expectation("a number of seconds since 1970")
            }
            advance()
            try expectPunctuation(")", "\")\" to close Time.at(")
            return Date(timeIntervalSince1970: seconds)
        case ("Time", "utc"), ("Time", "gm"):
            return try parseDateComponents(in: TimeZone(identifier: "UTC")!, method: method)
        case ("Time", "local"), ("Time", "mktime"), ("Time", "new"):
            return try parseDateComponents(in: TimeZone.current, method: method)
        default:
            throw error(
                "unknown date method \(className).\(method); expected Time.now, Time.parse('2024-05-31'), "
                    + "Time.at(seconds), Time.utc(year, month, day, …) or Time.local(year, month, day, …)",
                at: methodToken.start)
        }
    }

    /// `(year[, month[, day[, hour[, minute[, second]]]]])`, integers, like Ruby's `Time.utc`.
    mutating func parseDateComponents(in zone: TimeZone, method: String) throws(PredicateError) -> Date {
        try expectPunctuation("(", "\"(\" and a year")
        let names = ["year", "month", "day", "hour", "minute", "second"]
        let ranges = [1...9999, 1...12, 1...31, 0...23, 0...59, 0...60]
        var values = [Int]()
        while values.count < names.count {
            let token = current
            guard case .integer(let value) = current.kind else { throw expectation("the \(names[values.count])") }
            guard let number = Int(exactly: value), ranges[values.count].contains(number) else {
                let range = ranges[values.count]
                throw error(
                    "the \(names[values.count]) must be \(range.lowerBound)…\(range.upperBound)",
                    at: token.start)
            }
            values.append(number)
            advance()
            guard isPunctuation(",") else { break }
            advance()
        }
        try expectPunctuation(")", "\")\" to close Time.\(method)(")
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let padded = values + [1, 1, 0, 0, 0].suffix(names.count - values.count)
        let components = DateComponents(
            year: padded[0], month: padded[1], day: padded[2],
            hour: padded[3], minute: padded[4], second: padded[5])
        guard let date = calendar.date(from: components) else {
            throw error("Time.\(method)(…) is not a date", at: current.start)
        }
        return date
    }

    /// The optional options argument of a comparison: `NSCaseInsensitivePredicateOption`, the
    /// other constant names or integers, joined with `|`.
    mutating func parseComparisonOptions() throws(PredicateError) -> ComparisonOptions {
        let start = current.start
        var bits: Int64 = 0
        while true {
            let token = current
            switch token.kind {
            case .integer(let value) where value >= 0:
                bits |= value
            case .constant(let name):
                guard let value = Self.optionConstants[name] else {
                    throw error(
                        "unknown comparison option \(name); expected NSCaseInsensitivePredicateOption, "
                            + "NSDiacriticInsensitivePredicateOption or NSNormalizedPredicateOption",
                        at: token.start)
                }
                bits |= value
            default:
                throw expectation("comparison options such as NSCaseInsensitivePredicateOption")
            }
            advance()
            guard isPunctuation("|") else { break }
            advance()
        }
        let known = Self.optionBits.reduce(Int64(0)) { $0 | $1.0 }
        guard bits & ~known == 0 else {
            throw error(
                "unknown comparison option bits \(bits & ~known); the options are 1 (case-insensitive), "
                    + "2 (diacritic-insensitive), 4 (normalized) and 8 (locale-sensitive)", at: start)
        }
        var options: ComparisonOptions = []
        for (bit, option) in Self.optionBits where bits & bit != 0 { options.insert(option) }
        return options
    }
}
