import CDPredicate
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
package enum CoreDataSQLFunctions {
    /// Option bits of the functions' `flags` argument.
    package typealias Flag = StringMatching.Flag

    /// The fourth argument of `NSCoreDataStringSearch`.
    package typealias SearchOperation = StringMatching.SearchOperation

    /// Registers every function and collation on `db`.
    package static func register(in db: Database) {
        db.add(function: DatabaseFunction("NSCoreDataLike", argumentCount: 3, pure: true) { values in
            guard let value = text(values[0]), let pattern = text(values[1]) else { return nil }
            return StringMatching.like(value, pattern: pattern, flags: Int.fromDatabaseValue(values[2]) ?? 0)
        })
        db.add(function: DatabaseFunction("NSCoreDataMatches", argumentCount: 3, pure: true) { values in
            guard let value = text(values[0]), let pattern = text(values[1]) else { return nil }
            return try matches(value, pattern: pattern, flags: Int.fromDatabaseValue(values[2]) ?? 0)
        })
        db.add(function: DatabaseFunction("NSCoreDataStringSearch", argumentCount: 4, pure: true) { values in
            guard let value = text(values[0]), let search = text(values[1]) else { return nil }
            let operation = SearchOperation(rawValue: Int.fromDatabaseValue(values[3]) ?? 1) ?? .contains
            return StringMatching.stringSearch(value, search, flags: Int.fromDatabaseValue(values[2]) ?? 0, operation: operation)
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

    /// NSPredicate `MATCHES`: the ICU regular expression matches the whole value. Throws a
    /// database error for an invalid expression, which ends the statement.
    static func matches(_ value: String, pattern: String, flags: Int) throws -> Bool {
        do {
            return try StringMatching.matches(value, pattern: pattern, flags: flags)
        } catch {
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "MATCHES: invalid regular expression \"\(error.pattern)\"")
        }
    }
}
