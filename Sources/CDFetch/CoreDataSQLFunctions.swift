import Foundation
import GRDB

/// Stand-ins for the SQL functions and collations Core Data registers on its connections
/// (store-format.md §7.9, sqldebug.md §5), so the SQL cdstore generates — and SQL pasted from an
/// app's SQLDebug log — runs on a plain SQLite connection.
///
/// Their exact behaviour inside Core Data is not documented; these are cdstore's definitions:
///
/// * `NSCoreDataLike(value, pattern, flags)`: NSPredicate's `LIKE`: `*` matches any run of
///   characters, `?` exactly one, `\` escapes the next character; the whole value must match.
/// * `NSCoreDataMatches(value, regex, flags)`: NSPredicate's `MATCHES`: an ICU regular expression
///   that must match the whole value.
/// * `NSCoreDataStringSearch(value, search, flags, operation)`: a string comparison whose fourth
///   argument says which (cdstore's convention; a real log shows `1` for a contains search):
///   0 equal, 1 contains, 2 begins with, 3 ends with.
///
/// `flags` (from the predicate's options): `0x1` case-insensitive (`[c]`), `0x80`
/// diacritic-insensitive (`[d]`), `0x20` locale-sensitive (`[l]`); Core Data logs `[c]` as
/// `0x101`, `[d]` as `0x180` and `[l]` as `0x120`. A NULL value or pattern gives NULL (false).
///
/// Collations order text for sort descriptors: `NSCollateNoCase` (`caseInsensitiveCompare:`),
/// `NSCollateNumericallyNoCase` (case-insensitive, digit runs by value),
/// `NSCollateLocaleSensitive` (`localizedCompare:`), `NSCollateLocaleSensitiveNoCase`
/// (`localizedCaseInsensitiveCompare:`) and `NSCollateFinderlike` (`localizedStandardCompare:`).
public enum CoreDataSQLFunctions {
    /// Option bits of the functions' `flags` argument.
    public enum Flag {
        public static let caseInsensitive = 0x101
        public static let diacriticInsensitive = 0x180
        public static let localeSensitive = 0x120
    }

    /// The fourth argument of `NSCoreDataStringSearch`.
    public enum SearchOperation: Int, Sendable {
        case equal = 0, contains = 1, beginsWith = 2, endsWith = 3
    }

    /// Registers every function and collation on `db`.
    public static func register(in db: Database) {
        db.add(function: DatabaseFunction("NSCoreDataLike", argumentCount: 3, pure: true) { values in
            guard let value = text(values[0]), let pattern = text(values[1]) else { return nil }
            return like(value, pattern: pattern, flags: Int.fromDatabaseValue(values[2]) ?? 0)
        })
        db.add(function: DatabaseFunction("NSCoreDataMatches", argumentCount: 3, pure: true) { values in
            guard let value = text(values[0]), let pattern = text(values[1]) else { return nil }
            return try matches(value, pattern: pattern, flags: Int.fromDatabaseValue(values[2]) ?? 0)
        })
        db.add(function: DatabaseFunction("NSCoreDataStringSearch", argumentCount: 4, pure: true) { values in
            guard let value = text(values[0]), let search = text(values[1]) else { return nil }
            let operation = SearchOperation(rawValue: Int.fromDatabaseValue(values[3]) ?? 1) ?? .contains
            return stringSearch(value, search, flags: Int.fromDatabaseValue(values[2]) ?? 0, operation: operation)
        })
        let collations: [(String, @Sendable (String, String) -> ComparisonResult)] = [
            ("NSCollateNoCase", { $0.compare($1, options: .caseInsensitive) }),
            ("NSCollateNumericallyNoCase", { $0.compare($1, options: [.caseInsensitive, .numeric]) }),
            ("NSCollateLocaleSensitive", { $0.compare($1, options: [], range: nil, locale: .current) }),
            ("NSCollateLocaleSensitiveNoCase", { $0.compare($1, options: .caseInsensitive, range: nil, locale: .current) }),
            ("NSCollateFinderlike", { $0.compare($1, options: [.caseInsensitive, .numeric, .widthInsensitive], range: nil, locale: .current) }),
        ]
        for (name, compare) in collations {
            db.add(collation: DatabaseCollation(name, function: compare))
        }
    }

    /// Text of a value as SQLite would convert it; NULL stays nil.
    private static func text(_ value: DatabaseValue) -> String? {
        switch value.storage {
        case .null: return nil
        case .string(let s): return s
        case .int64(let i): return String(i)
        case .double(let d): return String(d)
        case .blob(let data): return String(decoding: data, as: UTF8.self)
        }
    }

    /// `text` folded as `flags` ask, so comparisons can work on plain characters.
    static func fold(_ text: String, flags: Int) -> String {
        var options: String.CompareOptions = []
        if flags & 0x1 != 0 { options.insert(.caseInsensitive) }
        if flags & 0x80 != 0 { options.insert(.diacriticInsensitive) }
        return options.isEmpty ? text : text.folding(options: options, locale: nil)
    }

    public static func stringSearch(_ value: String, _ search: String, flags: Int, operation: SearchOperation) -> Bool {
        let haystack = fold(value, flags: flags), needle = fold(search, flags: flags)
        switch operation {
        case .equal: return haystack == needle
        case .contains: return needle.isEmpty || haystack.contains(needle)
        case .beginsWith: return haystack.hasPrefix(needle)
        case .endsWith: return haystack.hasSuffix(needle)
        }
    }

    /// NSPredicate `MATCHES`: the ICU regular expression matches the whole value. Throws for an
    /// invalid expression.
    public static func matches(_ value: String, pattern: String, flags: Int) throws -> Bool {
        try regexes.matches(value, pattern: pattern, flags: flags)
    }

    private static let regexes = RegexCache()

    /// NSPredicate `LIKE`: `*`, `?` and `\` escapes over the whole value, by Character.
    public static func like(_ value: String, pattern: String, flags: Int) -> Bool {
        let text = Array(fold(value, flags: flags))
        var tokens: [LikeToken] = []
        var escaping = false
        for character in fold(pattern, flags: flags) {
            if escaping {
                tokens.append(.literal(character))
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else if character == "*" {
                tokens.append(.anyRun)
            } else if character == "?" {
                tokens.append(.anyOne)
            } else {
                tokens.append(.literal(character))
            }
        }
        if escaping { tokens.append(.literal("\\")) }
        // Greedy matching with one backtrack point per `*`: linear in practice, quadratic at worst.
        var t = 0, p = 0
        var star: (pattern: Int, text: Int)?
        while t < text.count {
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

    private enum LikeToken {
        case literal(Character), anyOne, anyRun

        func matches(_ character: Character) -> Bool {
            switch self {
            case .literal(let expected): return expected == character
            case .anyOne: return true
            case .anyRun: return false
            }
        }
    }

    /// Compiled regular expressions by pattern and flags: a query calls `NSCoreDataMatches` once
    /// per row with the same pattern.
    private final class RegexCache: @unchecked Sendable {
        private var compiled: [String: NSRegularExpression] = [:]
        private let lock = NSLock()

        func matches(_ value: String, pattern: String, flags: Int) throws -> Bool {
            let expression = try regex(pattern, flags: flags)
            let subject = flags & 0x80 != 0 ? value.folding(options: .diacriticInsensitive, locale: nil) : value
            return expression.firstMatch(in: subject, range: NSRange(subject.startIndex..., in: subject)) != nil
        }

        private func regex(_ pattern: String, flags: Int) throws -> NSRegularExpression {
            let key = "\(flags)/" + pattern
            lock.lock()
            defer { lock.unlock() }
            if let cached = compiled[key] { return cached }
            do {
                // MATCHES tests the whole value: anchor the pattern at both ends of the input.
                let expression = try NSRegularExpression(pattern: "\\A(?:" + pattern + ")\\z",
                                                         options: flags & 0x1 != 0 ? [.caseInsensitive] : [])
                compiled[key] = expression
                return expression
            } catch {
                throw DatabaseError(resultCode: .SQLITE_ERROR, message: "MATCHES: invalid regular expression \"\(pattern)\"")
            }
        }
    }
}
