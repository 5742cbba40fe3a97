import Foundation

/// NSPredicate's string operators on plain Swift strings: what the evaluator uses for validation
/// rules, and what `CDFetch`'s stand-ins for Core Data's SQL functions call, so a predicate
/// means the same whether SQLite or cdstore evaluates it.
///
/// `flags` are the bits of Core Data's SQL functions' `flags` argument: `0x1` case-insensitive
/// (`[c]`), `0x80` diacritic-insensitive (`[d]`), `0x20` locale-sensitive (`[l]`); Core Data
/// logs `[c]` as `0x101`, `[d]` as `0x180` and `[l]` as `0x120`.
package enum StringMatching {
    /// Option bits of the `flags` argument, as Core Data logs them.
    package enum Flag {
        package static let caseInsensitive = 0x101
        package static let diacriticInsensitive = 0x180
        package static let localeSensitive = 0x120
    }

    /// Which comparison `stringSearch` makes; the raw value is the fourth argument of
    /// `NSCoreDataStringSearch` (cdstore's convention; a real log shows `1` for a contains search).
    package enum SearchOperation: Int, Sendable {
        case equal = 0, contains = 1, beginsWith = 2, endsWith = 3
    }

    /// The flags for `[c]`, `[d]` and `[l]`.
    package static func flags(_ options: ComparisonOptions) -> Int {
        var flags = 0
        if options.contains(.caseInsensitive) { flags |= Flag.caseInsensitive }
        if options.contains(.diacriticInsensitive) { flags |= Flag.diacriticInsensitive }
        if options.contains(.localeSensitive) { flags |= Flag.localeSensitive }
        return flags
    }

    /// `text` folded as `flags` ask, so comparisons can work on plain characters.
    static func fold(_ text: String, flags: Int) -> String {
        var options: String.CompareOptions = []
        if flags & 0x1 != 0 { options.insert(.caseInsensitive) }
        if flags & 0x80 != 0 { options.insert(.diacriticInsensitive) }
        return options.isEmpty ? text : text.folding(options: options, locale: nil)
    }

    /// `==`, `CONTAINS`, `BEGINSWITH`, `ENDSWITH`.
    package static func stringSearch(_ value: String, _ search: String, flags: Int, operation: SearchOperation) -> Bool {
        self.search(fold(value, flags: flags), for: fold(search, flags: flags), operation: operation)
    }

    /// `stringSearch` on text that is already folded.
    static func search(_ haystack: String, for needle: String, operation: SearchOperation) -> Bool {
        switch operation {
        case .equal: return haystack == needle
        case .contains: return needle.isEmpty || haystack.contains(needle)
        case .beginsWith: return haystack.hasPrefix(needle)
        case .endsWith: return haystack.hasSuffix(needle)
        }
    }

    /// A `MATCHES` pattern that is not a valid ICU regular expression.
    package struct InvalidPattern: Error, Sendable {
        package let pattern: String
    }

    /// NSPredicate `MATCHES`: the ICU regular expression matches the whole value.
    package static func matches(_ value: String, pattern: String, flags: Int) throws(InvalidPattern) -> Bool {
        try regexes.matches(value, pattern: pattern, flags: flags)
    }

    private static let regexes = RegexCache()

    /// NSPredicate `LIKE`: `*`, `?` and `\` escapes over the whole value, by Character.
    package static func like(_ value: String, pattern: String, flags: Int) -> Bool {
        likeMatches(Array(fold(value, flags: flags)), likeTokens(fold(pattern, flags: flags), escape: "\\", anyRun: "*", anyOne: "?"))
    }

    /// One element of a parsed `LIKE` pattern; `Unit` is a Character, or a byte when pattern
    /// and value are plain ASCII (``StringMatcher``).
    enum LikeToken<Unit: Equatable & Sendable>: Sendable {
        case literal(Unit), anyOne, anyRun

        func matches(_ unit: Unit) -> Bool {
            switch self {
            case .literal(let expected): return expected == unit
            case .anyOne: return true
            case .anyRun: return false
            }
        }
    }

    /// A folded `LIKE` pattern as tokens: `escape` makes the next unit literal (a trailing one is
    /// itself literal), `anyRun` is `*`, `anyOne` is `?`.
    static func likeTokens<Pattern: Sequence>(
        _ pattern: Pattern, escape: Pattern.Element, anyRun: Pattern.Element,
        anyOne: Pattern.Element
    ) -> [LikeToken<Pattern.Element>] {
        var tokens: [LikeToken<Pattern.Element>] = []
        var escaping = false
        for unit in pattern {
            if escaping {
                tokens.append(.literal(unit))
                escaping = false
            } else if unit == escape {
                escaping = true
            } else if unit == anyRun {
                tokens.append(.anyRun)
            } else if unit == anyOne {
                tokens.append(.anyOne)
            } else {
                tokens.append(.literal(unit))
            }
        }
        if escaping { tokens.append(.literal(escape)) }
        return tokens
    }

    /// Whether the folded `text` matches the `LIKE` tokens as a whole.
    static func likeMatches<Text: RandomAccessCollection>(_ text: Text, _ tokens: [LikeToken<Text.Element>]) -> Bool
    where Text.Index == Int {
        // Greedy matching with one backtrack point per `*`: linear in practice, quadratic at worst.
        var t = text.startIndex, p = 0
        var star: (pattern: Int, text: Int)?
        while t < text.endIndex {
            if p < tokens.count, tokens[p].matches(text[t]) {
                t += 1
                p += 1
            } else if p < tokens.count, case .anyRun = tokens[p] {
                star = (p, t)
                p += 1
            } else if let backtrack = star {
                p = backtrack.pattern + 1
                t = backtrack.text + 1
                star = (backtrack.pattern, backtrack.text + 1)
            } else {
                return false
            }
        }
        while p < tokens.count, case .anyRun = tokens[p] { p += 1 }
        return p == tokens.count
    }

    /// Compiled regular expressions by pattern and flags: a query calls `NSCoreDataMatches` once
    /// per row with the same pattern.
    private final class RegexCache: @unchecked Sendable {
        private var compiled: [String: NSRegularExpression] = [:]
        private let lock = NSLock()

        func matches(_ value: String, pattern: String, flags: Int) throws(InvalidPattern) -> Bool {
            let expression = try regex(pattern, flags: flags)
            let subject = flags & 0x80 != 0 ? value.folding(options: .diacriticInsensitive, locale: nil) : value
            return expression.firstMatch(in: subject, range: NSRange(subject.startIndex..., in: subject)) != nil
        }

        private func regex(_ pattern: String, flags: Int) throws(InvalidPattern) -> NSRegularExpression {
            let key = "\(flags)/" + pattern
            lock.lock()
            defer { lock.unlock() }
            if let cached = compiled[key] { return cached }
            do {
                // MATCHES tests the whole value: anchor the pattern at both ends of the input.
                let expression = try NSRegularExpression(
                    pattern: "\\A(?:" + pattern + ")\\z",
                    options: flags & 0x1 != 0 ? [.caseInsensitive] : [])
                compiled[key] = expression
                return expression
            } catch {
                throw InvalidPattern(pattern: pattern)
            }
        }
    }
}
